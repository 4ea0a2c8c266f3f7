/** the widget's languages with a stemmer (stemming.ts STEM_LANGUAGES) */
type StemLanguage = 'en' | 'es' | 'fr' | 'de' | 'it' | 'pt' | 'nl';

/**
 * The most frequent function words of the widget's seven languages (articles, pronouns,
 * prepositions, auxiliaries, question words): they say nothing about what a question is about,
 * and counting them tells which language a text is written in (detectLanguage). Small on purpose:
 * a word that is a content word in one of the languages (English "come", "data") is left out.
 * English has its own, longer list in the no-model answer (chat/answer-words.ts).
 */
const WORDS: Record<StemLanguage, string> = {
  en: 'the a an and or of to in on at for with is are was were be been do does did have has had this that these those it its you your we our they their what which who how when where why can will would not no from by as',
  it: 'il lo la i gli le un una uno di del della dei delle degli dello da dal dalla in nel nella nei nelle con su sul sulla per tra fra e ed o che chi cosa come quando dove perché quale quali quanto quanti quanta quante è sono sia siamo siete era hanno ha ho avete abbiamo non si ci vi mi ti ne al alla ai agli alle anche più questo questa questi queste quello quella voi noi loro lui lei',
  es: 'el la los las un una unos unas de del al en con por para sin sobre entre y e o u que qué quien quién como cómo cuando cuándo donde dónde cual cuál cuales cuánto cuánta cuántos cuántas es son está están era fue ser hay ha han he tiene tienen tienes no se lo le les me te nos os su sus mi tu este esta estos estas ese esa muy más también usted ustedes',
  fr: 'le la les un une des du de d l au aux et ou que qu qui quoi comment quand où pourquoi quel quelle quels quelles combien est sont était être avoir a ai avez avons ont ne pas se ce cette ces il elle ils elles je tu nous vous on en dans sur pour par avec sans mon ma mes ton ta tes son sa ses votre vos notre nos leur leurs plus aussi y',
  de: 'der die das den dem des ein eine einen einem einer eines und oder aber nicht kein keine ist sind war waren sein hat haben habe hast habt wird werden kann können muss müssen ich du er sie es wir ihr mein meine dein deine sein seine unser unsere euer eure ihre mit von zu zum zur im in an am auf aus bei für über unter nach vor wie was wer wo wann warum welche welcher welches wieviel auch noch schon gibt',
  pt: 'o a os as um uma uns umas de do da dos das em no na nos nas ao aos à às por pelo pela para com sem sobre entre e ou que quem qual quais como quando onde porque porquê quanto quanta quantos quantas é são está estão era foi ser ter tem têm há não se lhe me te nos vos seu sua seus suas meu minha este esta estes estas esse essa isso isto mais também você vocês',
  nl: 'de het een en of maar niet geen is zijn was waren ben bent heeft hebben heb hebt wordt worden kan kunnen moet moeten ik jij je u hij zij ze wij we jullie mijn jouw uw zijn haar ons onze hun met van te tot in op aan uit bij voor over onder na naar hoe wat wie waar wanneer waarom welke welk ook nog al er dit dat deze die',
};

export const STOP_WORDS: Record<StemLanguage, ReadonlySet<string>> = Object.fromEntries(
  Object.entries(WORDS).map(([lang, words]) => [lang, new Set(words.split(' '))]),
) as unknown as Record<StemLanguage, ReadonlySet<string>>;

/** whether a lower-cased word is a stop word of `language` */
export function isStopWord(language: StemLanguage, word: string): boolean {
  return STOP_WORDS[language].has(word);
}

/**
 * The language a text is most likely written in, of the seven: the one whose stop words it holds
 * most of (ties and a text with none: English). A short question ("Avete cornetti vegani?") holds
 * one or two, enough to tell Italian from English; words shared by two languages ("de", "in")
 * count for both.
 */
export function detectLanguage(text: string): StemLanguage {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best: StemLanguage = 'en';
  let bestCount = 0;
  for (const lang of Object.keys(STOP_WORDS) as StemLanguage[]) {
    const set = STOP_WORDS[lang];
    let count = 0;
    for (const w of words) if (set.has(w)) count++;
    if (count > bestCount) {
      best = lang;
      bestCount = count;
    }
  }
  return best;
}
