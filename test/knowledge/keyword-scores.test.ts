import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { KeywordSearcher } from '../../src/modules/knowledge/keyword-searcher.js';
import {
  bestByScore,
  compactIds,
  KeywordScoreCache,
  matchPhrases,
} from '../../src/modules/knowledge/keyword-scores.js';
import { KnowledgeRepo, keywordHits, type KeywordHit } from '../../src/modules/knowledge/repo.js';
import { ftsQuery } from '../../src/modules/knowledge/search-query.js';
import { openDatabase } from '../../src/platform/db/index.js';
import { insertChunks, seedAgent } from '../helpers/seed.js';
import { useTempDirs } from '../helpers/temp.js';

/**
 * The keyword search sums each phrase's bm25 scores, kept between searches until the index
 * changes (keyword-scores.ts). These tests hold it to FTS5's own answer for the whole OR-ed query:
 * the same passages, in the same order, with the same scores, through every kind of change.
 */

const { tempDir, closeFirst } = useTempDirs('keyword-scores-');

const WORDS = 'opening hours weekend brunch refund policy gift voucher parking delivery table booking vegan menu'.split(
  ' ',
);

/** passages of shop words, some repeated, of varied lengths: bm25 weighs all three */
function passages(count: number, seed: number): string[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, (_, i) => {
    const length = 3 + Math.floor(next() * 14);
    const words = Array.from({ length }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    return `${words.join(' ')} note ${i}`;
  });
}

function setup() {
  const file = path.join(tempDir(), 'chat-agent.db');
  const database = openDatabase(file);
  closeFirst(database);
  const repo = new KnowledgeRepo(database.db);
  /** FTS5's bm25 over the whole OR-ed query, as the search ran before the cache */
  const whole = (agent: string, match: string, limit = 20): KeywordHit[] => {
    const { sql, params } = KnowledgeRepo.keywordQuery(agent, match, limit);
    return keywordHits(
      database.sqlite
        .prepare(sql)
        .raw()
        .all(...params) as unknown[][],
    );
  };
  return { file, database, repo, whole };
}

/** the same passages in the same order, scores equal to the last bits a sum's order may change */
function expectSameHits(actual: KeywordHit[], expected: KeywordHit[]) {
  expect(actual.map((h) => h.chunkId)).toEqual(expected.map((h) => h.chunkId));
  actual.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i]!.score, 9));
}

const QUESTIONS = [
  'opening hours',
  'weekend brunch and a gift voucher?',
  'refund policy for vegan menu',
  'parking near the table booking',
  'e-mail about delivery',
  'opening',
  'nothing matches zzz',
];

describe('keyword search from the scores of its phrases', () => {
  it("ranks as FTS5's bm25 over the whole query: passages, order and scores", () => {
    const { database, repo, whole } = setup();
    seedAgent(database.sqlite, 'agent-1', passages(600, 7));
    seedAgent(database.sqlite, 'agent-2', passages(300, 11));
    for (const round of ['read', 'held']) {
      for (const question of QUESTIONS) {
        const match = ftsQuery(question)!;
        for (const limit of [1, 5, 20])
          expectSameHits(repo.keywordSearch('agent-1', match, limit), whole('agent-1', match, limit));
      }
      // the second round is answered from what the first read
      if (round === 'read') expect(repo.keywordScores.size.phrases).toBeGreaterThan(5);
    }
    expect(repo.keywordSearch('agent-1', ftsQuery('weekend brunch')!, 20)).toHaveLength(20);
  });

  it('answers what FTS5 answers after each kind of change to the index', () => {
    const { database, repo, whole } = setup();
    const [first, second] = seedAgent(database.sqlite, 'agent-1', passages(200, 3));
    seedAgent(database.sqlite, 'agent-2', passages(100, 5));
    const match = ftsQuery('weekend brunch voucher')!;
    const same = () => expectSameHits(repo.keywordSearch('agent-1', match, 20), whole('agent-1', match, 20));
    same();
    const held = repo.keywordScores.size.phrases;
    expect(held).toBeGreaterThan(0);

    const changes: Array<[string, () => void]> = [
      [
        'a passage added',
        () => insertChunks(database.sqlite, 'agent-1', ['weekend brunch voucher weekend brunch'], 500),
      ],
      [
        'a passage edited',
        () => database.sqlite.prepare("UPDATE chunks SET content = 'voucher voucher voucher' WHERE id = ?").run(first),
      ],
      [
        'a title given',
        () => database.sqlite.prepare("UPDATE chunks SET title = 'Weekend brunch' WHERE id = ?").run(second),
      ],
      ['a passage removed', () => database.sqlite.prepare('DELETE FROM chunks WHERE id = ?').run(second)],
      // bm25 weighs by the whole table: another agent's passages move this one's scores
      ['another agent’s passages', () => insertChunks(database.sqlite, 'agent-2', passages(50, 9), 1000)],
      [
        "the agent's language",
        () => database.sqlite.prepare("UPDATE chatbots SET language = 'de' WHERE id = 'agent-1'").run(),
      ],
    ];
    for (const [change, run] of changes) {
      const before = repo.keywordSearch('agent-1', match, 20);
      run();
      const after = repo.keywordSearch('agent-1', match, 20);
      expectSameHits(after, whole('agent-1', match, 20));
      expect(after, change).not.toEqual(before);
    }
    // writes that leave the index alone keep what is held
    repo.keywordSearch('agent-1', match, 20);
    const kept = repo.keywordScores.size.phrases;
    database.sqlite.prepare("UPDATE chatbots SET name = 'renamed' WHERE id = 'agent-1'").run();
    database.sqlite.prepare("UPDATE chunks SET page = 3 WHERE chatbot_id = 'agent-1'").run();
    repo.keywordSearch('agent-1', match, 20);
    expect(repo.keywordScores.size.phrases).toBe(kept);
  });

  it("the index's term look-ups (a word held, a typo's neighbours) are kept as long and follow it too", () => {
    const { database, repo } = setup();
    seedAgent(database.sqlite, 'agent-1', ['opening hours on weekends']);
    // asked twice each: the second answer is the one kept
    for (let i = 0; i < 2; i++) {
      expect(repo.agentHoldsTerm('agent-1', 'park')).toBe(false);
      expect(repo.nearTerms('agent-1', 'parc')).toEqual([]);
      expect(repo.nearTerms('agent-1', 'weekand')).toEqual(['weekend']);
    }
    const [parking] = insertChunks(database.sqlite, 'agent-1', ['parking behind the shop'], 10);
    expect(repo.agentHoldsTerm('agent-1', 'park')).toBe(true);
    expect(repo.nearTerms('agent-1', 'parc')).toEqual(['park']);
    database.sqlite.prepare('DELETE FROM chunks WHERE id = ?').run(parking);
    expect(repo.agentHoldsTerm('agent-1', 'park')).toBe(false);
    expect(repo.nearTerms('agent-1', 'parc')).toEqual([]);
  });

  it('in the worker: reads the phrases it lacks, then answers from them, and follows writes', async () => {
    const { file, database, repo, whole } = setup();
    seedAgent(database.sqlite, 'agent-1', passages(400, 13));
    const app = Fastify({ logger: false });
    const searcher = new KeywordSearcher(file, repo, app.log);
    closeFirst({ close: () => void searcher.close() });
    for (const question of QUESTIONS) {
      const match = ftsQuery(question)!;
      expectSameHits(await searcher.search('agent-1', match, 20), whole('agent-1', match, 20));
      // now held: the same answer again
      expectSameHits(await searcher.search('agent-1', match, 20), whole('agent-1', match, 20));
    }
    const match = ftsQuery('opening hours brunch')!;
    const [added] = insertChunks(database.sqlite, 'agent-1', ['opening hours brunch opening hours brunch'], 900);
    const hits = await searcher.search('agent-1', match, 20);
    expect(hits[0]!.chunkId).toBe(added);
    expectSameHits(hits, whole('agent-1', match, 20));
  });

  it('a change committed while the worker reads: the whole query answers, no scores of two states are summed', async () => {
    const { file, database, repo, whole } = setup();
    seedAgent(database.sqlite, 'agent-1', passages(300, 17));
    const app = Fastify({ logger: false });
    const searcher = new KeywordSearcher(file, repo, app.log);
    closeFirst({ close: () => void searcher.close() });
    // two of the question's words held, the third read by the worker; the write lands before
    // its answer does
    await searcher.search('agent-1', ftsQuery('refund policy')!, 20);
    const match = ftsQuery('refund policy parking')!;
    const searching = searcher.search('agent-1', match, 20);
    const [added] = insertChunks(database.sqlite, 'agent-1', ['refund policy parking refund policy parking'], 900);
    const hits = await searching;
    // whether the worker read before the write or after, what it read is not of the state the
    // cache is now keyed by: the whole query runs, after the write
    const now = whole('agent-1', match, 20);
    expect(hits[0]!.chunkId).toBe(added);
    expectSameHits(hits, now);
    expectSameHits(await searcher.search('agent-1', match, 20), now);
  });
});

describe('the score cache', () => {
  const scores = (ids: number[], values: number[]) => ({
    ids: Uint32Array.from(ids),
    scores: Float64Array.from(values),
  });

  it('sums phrases by passage and keeps the lowest, equal scores in rowid order', () => {
    const a = scores([1, 3, 5, 8], [-1, -2, -0.5, -3]);
    const b = scores([2, 3, 8, 9], [-1, -1.5, -0.25, -1]);
    expect(bestByScore([a, b], 4)).toEqual([
      { chunkId: 3, score: -3.5 },
      { chunkId: 8, score: -3.25 },
      { chunkId: 1, score: -1 },
      { chunkId: 2, score: -1 },
    ]);
    expect(bestByScore([a, b], 0)).toEqual([]);
    // ids past 32 bits stay 64-bit floats, and merge with 32-bit ones
    const far = { ids: compactIds(Float64Array.of(3, 2 ** 33)), scores: Float64Array.of(-1, -9) };
    expect(far.ids).toBeInstanceOf(Float64Array);
    expect(compactIds(Float64Array.of(3, 2 ** 32 - 1))).toBeInstanceOf(Uint32Array);
    expect(bestByScore([a, far], 3)).toEqual([
      { chunkId: 2 ** 33, score: -9 },
      { chunkId: 3, score: -3 },
      { chunkId: 8, score: -3 },
    ]);
    expect(bestByScore([], 5)).toEqual([]);
  });

  it('drops the least recently used phrase when full, keeps no phrase over a quarter of it, and forgets all on a change', () => {
    const cache = new KeywordScoreCache(4 * 12 * 10); // ten passages' scores (32-bit ids), ... of forty
    cache.sync(1);
    const ten = scores([...Array(10).keys()], Array(10).fill(-1));
    cache.put('"a"', ten, 1);
    cache.put('"b"', ten, 1);
    cache.put('"c"', ten, 1);
    cache.put('"d"', ten, 1);
    expect(cache.get('"a"')).toBe(ten); // "a" is now the most recent
    cache.put('"e"', ten, 1);
    expect(cache.get('"b"')).toBeUndefined();
    expect(cache.get('"a"')).toBe(ten);
    cache.put('"big"', scores([...Array(11).keys()], Array(11).fill(-1)), 1);
    expect(cache.get('"big"')).toBeUndefined();
    // read at another count: not kept
    cache.put('"f"', ten, 0);
    expect(cache.get('"f"')).toBeUndefined();
    cache.sync(2);
    expect(cache.size).toEqual({ phrases: 0, bytes: 0 });
  });

  it("takes the agent's phrases apart, and leaves any other query whole", () => {
    expect(matchPhrases('"a1x opening" OR "a1x hours" OR "a1x opening"')).toEqual(['"a1x opening"', '"a1x hours"']);
    expect(matchPhrases('"a1x opening" AND "a1x hours"')).toBeNull();
    expect(matchPhrases('a1x*')).toBeNull();
  });
});
