import type { SourceRow } from './tables.js';

// A passage as retrieval gives it to the chat (KnowledgeService.search), and the source's name it carries.

export interface Passage {
  chunkId: number;
  sourceId: string;
  /** the source as visitors see it named (sourceLabel): a file by its title, never its file name */
  sourceName: string;
  sourceUrl: string | null;
  content: string;
  /** where in the source: page title, the page's own URL (websites), PDF page, headings (passage-context.ts) */
  title: string | null;
  pageUrl: string | null;
  page: number | null;
  heading: string | null;
  /** fused reciprocal-rank score; higher is better */
  score: number;
  /** found by the keyword index (bm25) */
  keywordMatch: boolean;
  /** cosine distance from the query, when the vector index found it */
  distance: number | null;
  /** a qa source whose question matches the query: the owner's answer, word for word; else null */
  qaAnswer: string | null;
  /** a qa source's passage, matching or not: the owner's question and answer (the answer is what a quote of it shows); else null */
  qa: { question: string; answer: string } | null;
}

/**
 * A source's name as visitors see it (citations, and the model's view of where a passage comes
 * from): a file by its document title (PDF or DOCX metadata) or else its file name without the
 * extension ("price-list-2026.pdf" is "price-list-2026"), so an internal file name is never shown;
 * websites, texts and Q&A by their name. The owner's own views keep the file name.
 */
export function sourceLabel(type: SourceRow['type'], name: string, title: string | null): string {
  if (type !== 'file') return name;
  return title?.trim() || name.replace(/\.[a-z0-9]{1,5}$/i, '').trim() || name;
}
