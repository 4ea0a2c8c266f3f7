import { partitionKey } from '../../platform/text/stemming.js';

/**
 * One agent's FTS5 query from `match` (ftsQuery's phrases of stems, OR-ed): each word with the
 * agent's prefix, as the index holds the agent's terms (migration 0039). Nothing else changes:
 * the same phrases, scored by bm25 as before, over the agent's passages only.
 */
export function agentMatch(chatbotId: string, match: string): string {
  const key = partitionKey(chatbotId);
  return match.replace(
    /"([^"]*)"/g,
    (_, phrase: string) =>
      `"${phrase
        .split(' ')
        .filter(Boolean)
        .map((word) => key + word)
        .join(' ')}"`,
  );
}
