import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { KeywordSearcher } from '../../src/modules/knowledge/keyword-searcher.js';
import { agentMatch } from '../../src/modules/knowledge/keyword-query.js';
import { KnowledgeRepo } from '../../src/modules/knowledge/repo.js';
import { partitionKey } from '../../src/platform/text/stemming.js';
import { ftsQuery } from '../../src/modules/knowledge/search-query.js';
import { migrationsDir } from '../../src/platform/assets.js';
import { openDatabase, openSqlite } from '../../src/platform/db/index.js';
import type Database from 'better-sqlite3';
import { seedAgent } from '../helpers/seed.js';
import { useTempDirs } from '../helpers/temp.js';

/**
 * The keyword index is partitioned by agent: each term carries its agent's prefix (migration
 * 0039; before it, one token per agent beside the words, 0010). These tests hold it to what the
 * join did before: only the agent's own chunks, whatever its id looks like, through inserts,
 * updates and deletes, and on a database that had chunks before the migrations.
 */

const { tempDir, closeFirst } = useTempDirs('keyword-index-');

const integrityCheck = (sqlite: Database.Database) =>
  sqlite.prepare("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)").run();

describe('keyword index per agent', () => {
  it("finds only the agent's own chunks, whatever the ids look like", () => {
    const database = openDatabase(path.join(tempDir(), 'chat-agent.db'));
    closeFirst(database);
    const repo = new KnowledgeRepo(database.db);
    // ids that would collide if hyphens were dropped, one with quotes and FTS syntax, one non-ASCII
    const ids = ['ab-c', 'a-bc', 'x" OR "y', 'agent:one*', 'café-ü'];
    const chunkIds = new Map(
      ids.map((id) => [id, seedAgent(database.sqlite, id, [`opening hours of ${id}`, 'parking behind the shop'])]),
    );
    for (const id of ids) {
      const hits = repo.keywordSearch(id, ftsQuery('opening parking')!, 20).map((h) => h.chunkId);
      expect(hits.sort((a, b) => a - b)).toEqual(chunkIds.get(id));
    }
    expect(repo.keywordSearch('no-such-agent', ftsQuery('opening')!, 20)).toEqual([]);
  });

  it('ranks by the words alone (the agent token weighs nothing) and follows updates and deletes', () => {
    const database = openDatabase(path.join(tempDir(), 'chat-agent.db'));
    closeFirst(database);
    const repo = new KnowledgeRepo(database.db);
    const [weekend, both, other] = seedAgent(database.sqlite, 'agent-1', [
      'open on the weekend',
      'weekend opening hours, weekend brunch',
      'refund policy',
    ]);
    expect(repo.keywordSearch('agent-1', '"weekend"', 20).map((h) => h.chunkId)).toEqual([both, weekend]);

    database.sqlite.prepare("UPDATE chunks SET content = 'weekend refunds' WHERE id = ?").run(other);
    database.sqlite.prepare('DELETE FROM chunks WHERE id = ?').run(both);
    expect(
      repo
        .keywordSearch('agent-1', '"weekend"', 20)
        .map((h) => h.chunkId)
        .sort(),
    ).toEqual([weekend, other].sort());
    expect(repo.keywordSearch('agent-1', '"brunch"', 20)).toEqual([]);
    integrityCheck(database.sqlite);
  });

  it('indexes the chunks a database already had before the migration', () => {
    const dir = tempDir();
    const file = path.join(dir, 'chat-agent.db');
    // the migrations up to 0009, as a database written before this change has them
    const older = path.join(dir, 'migrations');
    cpSync(migrationsDir(), older, { recursive: true });
    const journalFile = path.join(older, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
    journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < '0010'); // not 0010, nor any later one
    writeFileSync(journalFile, JSON.stringify(journal));
    const sqlite = openSqlite(file);
    migrate(drizzle(sqlite), { migrationsFolder: older });
    const [a] = seedAgent(sqlite, 'agent-a', ['gift vouchers for sale']);
    seedAgent(sqlite, 'agent-b', ['gift wrapping on request']);
    sqlite.close();

    const database = openDatabase(file);
    closeFirst(database);
    const repo = new KnowledgeRepo(database.db);
    expect(repo.keywordSearch('agent-a', '"gift"', 20).map((h) => h.chunkId)).toEqual([a]);
    integrityCheck(database.sqlite);
  });
});

describe("an agent's own terms", () => {
  it('the typo look-up and "does the agent hold this word" read only the agent\'s terms', () => {
    const database = openDatabase(path.join(tempDir(), 'chat-agent.db'));
    closeFirst(database);
    const repo = new KnowledgeRepo(database.db);
    const [croissant] = seedAgent(database.sqlite, 'agent-a', ['Fresh croissants every morning.']);
    seedAgent(database.sqlite, 'agent-b', ['Sourdough loaves on Fridays.']);
    expect(repo.nearTerms('agent-a', 'croisant')).toEqual(['croissant']);
    expect(repo.nearTerms('agent-b', 'croisant')).toEqual([]);
    expect(repo.agentHoldsTerm('agent-a', 'croissant')).toBe(true);
    expect(repo.agentHoldsTerm('agent-b', 'croissant')).toBe(false);
    expect(
      repo.keywordSearch(
        'agent-a',
        ftsQuery('Any croisants?', { nearTerms: (s) => repo.nearTerms('agent-a', s) })!,
        20,
      ),
    ).toEqual([expect.objectContaining({ chunkId: croissant })]);
    // a deleted passage's word is no longer held, though the index's counts may still name it
    database.sqlite.prepare('DELETE FROM chunks WHERE id = ?').run(croissant);
    expect(repo.agentHoldsTerm('agent-a', 'croissant')).toBe(false);
  });

  it("a search names the agent's own terms: every word of every phrase carries the agent's prefix", () => {
    const key = partitionKey('shop');
    expect(agentMatch('shop', '"hour" OR "open hour" OR "e mail"')).toBe(
      `"${key}hour" OR "${key}open ${key}hour" OR "${key}e ${key}mail"`,
    );
  });
});

describe('keyword search in a worker (KeywordSearcher)', () => {
  /** the app's database in a temp dir, closed after the test */
  function appDatabase() {
    const file = path.join(tempDir(), 'chat-agent.db');
    const database = openDatabase(file);
    closeFirst(database);
    return { file, database, repo: new KnowledgeRepo(database.db) };
  }

  function warningsLog() {
    const warnings: string[] = [];
    const { log } = Fastify({
      logger: { level: 'warn', stream: { write: (line: string) => void warnings.push(line) } },
    });
    return { log, warnings };
  }

  it('answers as the main thread does, per agent, and sees chunks committed after it started', async () => {
    const { file, database, repo } = appDatabase();
    const ids = ['ab-c', 'a-bc', 'x" OR "y', 'café-ü'];
    for (const id of ids)
      seedAgent(database.sqlite, id, [
        `opening hours of ${id}`,
        'parking behind the shop',
        'weekend opening, weekend brunch',
      ]);
    const { log, warnings } = warningsLog();
    const searcher = new KeywordSearcher(file, repo, log);
    closeFirst({ close: () => void searcher.close() });

    for (const id of ids) {
      const inWorker = await searcher.search(id, ftsQuery('opening weekend')!, 20);
      expect(inWorker.length).toBe(2);
      expect(inWorker).toEqual(repo.keywordSearch(id, ftsQuery('opening weekend')!, 20));
    }
    // a chunk stored now (the main connection commits) is found by the worker's next search
    const [later] = database.sqlite
      .prepare(
        "INSERT INTO chunks (source_id, chatbot_id, ordinal, content, token_count) VALUES ('source-ab-c', 'ab-c', 9, 'gift vouchers at the desk', 4) RETURNING id",
      )
      .pluck()
      .all() as number[];
    expect((await searcher.search('ab-c', ftsQuery('vouchers')!, 20)).map((h) => h.chunkId)).toEqual([later]);
    expect(await searcher.search('a-bc', ftsQuery('vouchers')!, 20)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('serves searches in the order they were asked under sustained load (no search loses its place in the queue)', async () => {
    const { file, database, repo } = appDatabase();
    seedAgent(
      database.sqlite,
      'agent-1',
      Array.from({ length: 200 }, (_, i) => `opening hours and weekend brunch, note ${i}`),
    );
    const { log, warnings } = warningsLog();
    const searcher = new KeywordSearcher(file, repo, log);
    closeFirst({ close: () => void searcher.close() });

    // 20 visitors, each asking again as soon as answered, as under load: with one thread, the
    // searches must finish in the order they were asked (piscina's default queue put a search it
    // could not hand over at once back at the tail: some waited 10 s while others took 1 s)
    let asked = 0;
    const finished: number[] = [];
    const visitor = async () => {
      while (asked < 400) {
        const ticket = asked++;
        // a word of its own per search: the worker reads it (scores held from earlier
        // searches would answer without the worker, keyword-scores.ts)
        await searcher.search('agent-1', ftsQuery(`opening weekend ${ticket}`)!, 20);
        finished.push(ticket);
      }
    };
    await Promise.all(Array.from({ length: 20 }, visitor));
    expect(finished).toHaveLength(400);
    expect(finished).toEqual([...finished].sort((a, b) => a - b));
    expect(warnings).toEqual([]);
  });

  it('runs the search on this thread, with a warning, when the worker cannot', async () => {
    const { database, repo } = appDatabase();
    const [chunk] = seedAgent(database.sqlite, 'agent-1', ['open on the weekend']);
    const { log, warnings } = warningsLog();
    // the worker opens only an existing file: this one is not there
    const searcher = new KeywordSearcher(path.join(tempDir(), 'missing.db'), repo, log);
    closeFirst({ close: () => void searcher.close() });
    expect((await searcher.search('agent-1', '"weekend"', 20)).map((h) => h.chunkId)).toEqual([chunk]);
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain('keyword search in the worker failed');
  });
});

describe('the keyword query from a question', () => {
  it('keeps one-letter words ("R", "C", "X") but not "a", "I" or the letters of contractions', () => {
    // each word stemmed (English, the default: platform/text/stemming.ts)
    expect(ftsQuery('How do I install R packages?')).toBe('"instal" OR "r" OR "packag" OR "instal r" OR "r packag"');
    expect(ftsQuery("Is there a C compiler, and what's on the X axis?")).toBe(
      '"c" OR "compil" OR "x" OR "axi" OR "c compil" OR "x axi"',
    );
    expect(ftsQuery("I don't see R's plots, I'm lost in l'été")).toBe(
      // "lost" brings "lose", its verb (the built-in lexicon, platform/text/paraphrases.ts)
      '"don" OR "see" OR "r" OR "plot" OR "lost" OR "été" OR "lose"',
    );
    expect(ftsQuery('a I')).toBeNull();
  });

  it('"install R packages" finds the passage about R first', () => {
    const database = openDatabase(path.join(tempDir(), 'chat-agent.db'));
    closeFirst(database);
    const repo = new KnowledgeRepo(database.db);
    // without the R, the shorter Python passage would rank first (bm25 favours short passages)
    const [r, python] = seedAgent(database.sqlite, 'agent-r', [
      'To install R packages, call install.packages("ggplot2") from the R console; CRAN mirrors are listed in the settings.',
      'Install Python packages with pip.',
      'Opening hours: nine to five.',
    ]);
    const match = ftsQuery('How do I install R packages?');
    expect(match).not.toBeNull();
    expect(repo.keywordSearch('agent-r', match!, 20).map((h) => h.chunkId)).toEqual([r, python]);
  });
});
