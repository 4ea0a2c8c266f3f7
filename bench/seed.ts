// Generated knowledge bases for the benchmarks: nothing is downloaded.
import type { AppDatabase } from '../src/platform/db/index.js';
import type { VectorIndex } from '../src/modules/knowledge/vector-index.js';

/** A deterministic pseudo-random generator (so runs compare). */
export function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Unit vectors around `subjects` random centres: passages and questions about a limited number
 * of subjects, which is what makes nearest-neighbour search meaningful (uniform random vectors
 * are all about equally far apart).
 */
export function subjectSampler(dims: number, seed: number, subjects: number): (count: number) => Float32Array[] {
  const random = generator(seed);
  const centres = Array.from({ length: subjects }, () => Float32Array.from({ length: dims }, () => random() - 0.5));
  return (count) =>
    Array.from({ length: count }, () => {
      const centre = centres[Math.floor(random() * centres.length)]!;
      const v = Float32Array.from(centre, (c) => c + (random() - 0.5) * 0.6);
      let norm = 0;
      for (const x of v) norm += x * x;
      norm = Math.sqrt(norm);
      for (let i = 0; i < v.length; i++) v[i]! /= norm;
      return v;
    });
}

// Passages are drawn from a Zipf-distributed vocabulary (word of rank r has probability ~ 1/r),
// as natural text is: function words at the top, the shop-talk words of the bench's questions at
// middle ranks (a word like "hours" occurs in a few percent of passages, not in all of them), and
// a long tail of rare pseudo-words. A small uniform vocabulary would make every passage match
// every question, which no real knowledge base does and which turns keyword search into a scan.
const FUNCTION_WORDS = (
  'the of and to a in is you that it for on are with as we be at this your have or from by our can not ' +
  'will an if all more about which when there also they one has been their what so up out any time use new how only'
).split(' ');
export const SHOP_WORDS = (
  'opening hours price delivery refund warranty parking booking table menu vegan gluten allergy invoice payment card ' +
  'cancel subscription account password support email phone address office team weekend holiday gift voucher student discount'
).split(' ');
const VOCABULARY_SIZE = 30_000;

const vocabulary: string[] = (() => {
  const random = generator(424242);
  const syllables =
    'ka lo mi ner sta po vin tre dal fo gu reb shi mon tal ve cor pla du zen bri hal quo rin sel tam nu wex ja fli'.split(
      ' ',
    );
  const words: string[] = [...FUNCTION_WORDS];
  const seen = new Set(words);
  // shop words at ranks 150..~1700, spread out: mid-frequency domain terms
  const shopRanks = new Map(SHOP_WORDS.map((w, i) => [150 + i * 45, w]));
  while (words.length < VOCABULARY_SIZE) {
    const shop = shopRanks.get(words.length);
    if (shop) {
      words.push(shop);
      continue;
    }
    const n = 2 + Math.floor(random() * 3);
    let w = '';
    for (let k = 0; k < n; k++) w += syllables[Math.floor(random() * syllables.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
})();

/** cumulative Zipf weights (s = 1) over the vocabulary, for sampling by binary search */
const cumulative: Float64Array = (() => {
  const c = new Float64Array(vocabulary.length);
  let sum = 0;
  for (let r = 0; r < vocabulary.length; r++) c[r] = sum += 1 / (r + 1);
  for (let r = 0; r < c.length; r++) c[r]! /= sum;
  return c;
})();

function zipfWord(random: () => number): string {
  const x = random();
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return vocabulary[lo]!;
}

/** A passage of about 120 words (~160 tokens), different for each index. */
export function passage(random: () => number, i: number): string {
  const words: string[] = [];
  for (let w = 0; w < 120; w++) words.push(zipfWord(random));
  return `Passage ${i}: ${words.join(' ')}.`;
}

/**
 * Inserts an account, an agent, one source and `count` chunks with vectors straight into the
 * database (the API path is measured elsewhere; here only the size matters). Returns `count`.
 */
export function seedAgentChunks(
  database: AppDatabase,
  index: VectorIndex | null,
  chatbotId: string,
  count: number,
  sample: (n: number) => Float32Array[],
  ownerId?: string,
): number {
  const { sqlite } = database;
  const now = new Date().toISOString();
  const userId = ownerId ?? `user-${chatbotId}`;
  if (!ownerId) {
    sqlite
      .prepare(
        "INSERT INTO users (id, name, email, password_hash, role, status, plan_id, created_at) VALUES (?, 'bench', ?, 'x', 'user', 'active', 'free', ?)",
      )
      .run(userId, `${chatbotId}@example.com`, now);
  }
  if (!sqlite.prepare('SELECT 1 FROM chatbots WHERE id = ?').get(chatbotId)) {
    sqlite
      .prepare(
        `INSERT INTO chatbots (id, user_id, name, model, provider, temperature, max_tokens, instructions, status, public_access, primary_color, secondary_color,
          accent_color, welcome_message, widget_position, widget_theme, widget_size, lead_capture_enabled, email_alerts_enabled, rate_limit_enabled, messages_per_hour,
          font_family, font_size, bubble_style, auto_expand, created_at, updated_at)
         VALUES (?, ?, 'bench', 'gpt-4o-mini', 'openai', 0.5, 100, 'Answer briefly.', 'active', 1, '#000', '#000', '#000', 'hi', 'bottom-right', 'auto', 'medium', 0, 0, 0, 60, 'sans', 14, 'rounded', 0, ?, ?)`,
      )
      .run(chatbotId, userId, now, now);
  }
  const sourceId = `source-${chatbotId}-${count}`;
  sqlite
    .prepare(
      "INSERT INTO sources (id, chatbot_id, type, name, status, progress, created_at, updated_at) VALUES (?, ?, 'text', 'generated', 'completed', 1, ?, ?)",
    )
    .run(sourceId, chatbotId, now, now);
  const insert = sqlite.prepare(
    'INSERT INTO chunks (source_id, chatbot_id, ordinal, content, token_count) VALUES (?, ?, ?, ?, 160)',
  );
  const random = generator(count + chatbotId.length);
  const BATCH = 2000;
  for (let start = 0; start < count; start += BATCH) {
    const n = Math.min(BATCH, count - start);
    const ids = sqlite.transaction(() =>
      Array.from({ length: n }, (_, i) =>
        Number(insert.run(sourceId, chatbotId, start + i, passage(random, start + i)).lastInsertRowid),
      ),
    )();
    if (index) {
      const vectors = sample(n);
      index.store(ids.map((chunkId, i) => ({ chunkId, chatbotId, vector: vectors[i]! })));
    }
  }
  return count;
}
