/** What gaps group by and what the search matches qa questions by (gaps.ts and service.ts both use it). */

const GAP_STOPWORDS = new Set(
  (
    'a an and are as at be but by can could do does did for from had has have how i if in into is it its me my no not of on or our ' +
    'so that the their them then there these they this to us was we were what when where which who why will with would you your ' +
    'about any all am been being get got just more most some such than too very whats hi hello please thanks thank tell know ' +
    // a few German, French, Spanish function words
    'der die das und ist sind wie was wann wo ich sie ihr ihre haben hat mit für von zu den dem ein eine le la les et est sont ' +
    'comment quand où je vous votre vos de des du un une el los las y es son cómo cuándo dónde yo usted su sus con para por una'
  ).split(' '),
);

/**
 * The grouping key: the question's words, lower-cased, stop words out, deduplicated and sorted,
 * so "What are your opening hours?" and "opening hours?" group. Empty: nothing to group by.
 */
export function questionKey(text: string): string {
  const words = new Set<string>();
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:['\u2019][\p{L}\p{N}]+)*/gu)) {
    if (!GAP_STOPWORDS.has(word) && !(word.length === 1 && !/\p{N}/u.test(word))) words.add(word);
  }
  return [...words].sort().join(' ');
}
