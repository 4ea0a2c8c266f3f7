/**
 * The pass rule of a test question (docs/API-NOTES.md "Test questions"): every expected phrase is
 * in the answer, compared without case, accents, Markdown marks or extra whitespace; and when the
 * test names a source, the answer came from it. A test with neither passes when the agent found
 * an answer in its knowledge.
 */

export interface Verdict {
  passed: boolean;
  /** why it failed, in plain words; null when it passed */
  reason: string | null;
}

export interface Judged {
  answer: string;
  /** the sources the answer counts as coming from */
  sourceIds: string[];
  /** the knowledge held an answer */
  found: boolean;
}

export interface Expectation {
  expected_phrases: string[];
  expected_source_id: string | null;
  /** the expected source's name, to name it in a reason */
  expected_source_name: string | null;
  /** whether the expected source still exists */
  expected_source_exists: boolean;
}

/** Lower case, accents and Markdown marks (quotes, emphasis, headings) away, whitespace as single spaces. */
export function normalise(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[*_`>#]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function judge(expect: Expectation, got: Judged): Verdict {
  const reasons: string[] = [];
  const answer = normalise(got.answer);
  const missing = expect.expected_phrases.filter((p) => !answer.includes(normalise(p)));
  if (missing.length > 0) reasons.push(`missing: ${missing.map((p) => `'${p}'`).join(', ')}`);
  if (expect.expected_source_id) {
    const name = expect.expected_source_name ? `'${expect.expected_source_name}'` : expect.expected_source_id;
    if (!expect.expected_source_exists) reasons.push(`the expected source ${name} no longer exists`);
    else if (!got.sourceIds.includes(expect.expected_source_id))
      reasons.push(`the answer did not come from source ${name}`);
  }
  if (expect.expected_phrases.length === 0 && !expect.expected_source_id && !got.found)
    reasons.push('the agent found no answer in its knowledge');
  return reasons.length === 0 ? { passed: true, reason: null } : { passed: false, reason: reasons.join('; ') };
}

/**
 * A phrase a right answer holds, taken from an owner's written answer (a Q&A source): its first
 * sentence, its end mark away, when it is short enough to be quoted whole; else none (the owner
 * adds the phrases the answer must hold).
 */
export function phrasesOf(answer: string): string[] {
  const first = answer
    .trim()
    .split(/(?<=[.!?])\s+|\n/)[0]
    ?.trim()
    .replace(/[.!?]+$/, '');
  return first && first.length <= MAX_PHRASE_FROM_ANSWER ? [first] : [];
}

const MAX_PHRASE_FROM_ANSWER = 120;
