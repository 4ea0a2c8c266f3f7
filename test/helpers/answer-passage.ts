import type { AnswerPassage } from '../../src/modules/chat/knowledge-answer.js';

/** A retrieved passage as the no-key answer receives it: found by keyword, from one text source. */
export function answerPassage(content: string, extra: Partial<AnswerPassage> = {}): AnswerPassage {
  return {
    content,
    sourceId: 'src-1',
    sourceName: 'notes.txt',
    title: null,
    pageUrl: null,
    page: null,
    heading: null,
    keywordMatch: true,
    distance: null,
    ...extra,
  };
}
