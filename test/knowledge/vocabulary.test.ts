import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeRepo } from '../../src/modules/knowledge/repo.js';
import { editDistance } from '../../src/modules/knowledge/word-distance.js';
import { ftsQuery, qaMatches } from '../../src/modules/knowledge/search-query.js';
import { migrationsDir } from '../../src/platform/assets.js';
import { openDatabase, openSqlite } from '../../src/platform/db/index.js';
import { auth, createAgent, registerUser, startTestApp, type TestApp } from '../helpers/app.js';
import { keywordSearchService } from '../helpers/knowledge-service.js';
import { seedAgent } from '../helpers/seed.js';

/**
 * Issue 33.3: a question in the visitor's own words finds the owner's passage whatever the
 * inflection (in the agent's language), with a typo, or in a word the owner declared a synonym
 * of the passage's ("cornetto = croissant"). Keyword search only (no embedder): the vector half
 * of the search would hide what the keyword half misses.
 */

/** PUT /api/chatbots/:id with `payload`, as the agent's owner */
function putAgent(t: TestApp, token: string, agentId: string, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'PUT', url: `/api/chatbots/${agentId}`, headers: auth(token), payload });
}

describe('keyword search in the visitor words', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = (await registerUser(t.app)).token;
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  /** an agent with these settings and one text source per passage */
  async function agentWith(settings: Record<string, unknown>, passages: string[]): Promise<string> {
    const agent = await createAgent(t.app, token, settings);
    for (const [i, content] of passages.entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${agent.id}/text`,
        headers: auth(token),
        payload: { name: `passage-${i}`, content },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    return agent.id;
  }

  /** the passages keyword search finds, through services of their own (the agents' repository keeps rows it read) */
  async function found(agentId: string, question: string): Promise<string[]> {
    return (await keywordSearchService(t).search(agentId, question, 5)).map((p) => p.content);
  }

  const DISTRACTORS = ['Our team was founded in 2010 by two friends.', 'The weather in spring is mild.'];
  const SHIPPING = 'We ship to every country; the cost is 5 euros per parcel.';
  const CROISSANT = 'A fresh croissant with butter every morning.';
  const CORNETTO = 'Il cornetto alla crema costa 1,50 euro.';
  const LIEFERUNG = 'Die Lieferung dauert zwei Werktage.';

  /** an agent with these settings, `passages` and DISTRACTORS, on which each question finds only its passage */
  async function findingOnly(
    settings: Record<string, unknown>,
    passages: string[],
    finds: Record<string, string>,
  ): Promise<string> {
    const id = await agentWith(settings, [...passages, ...DISTRACTORS]);
    for (const [question, passage] of Object.entries(finds))
      expect(await found(id, question), question).toEqual([passage]);
    return id;
  }

  it('English inflections: "shipping costs" finds "ship ... cost", "croissants" finds "croissant"', async () => {
    await findingOnly({ language: 'en' }, [SHIPPING, CROISSANT], {
      'What are the shipping costs?': SHIPPING,
      'Do you have croissants?': CROISSANT,
    });
  });

  it('Italian inflections, stemmed in the agent language: "cornetti" finds "cornetto"', async () => {
    const SPEDIZIONI = 'Le spedizioni partono ogni lunedì.';
    await findingOnly({ language: 'it' }, [CORNETTO, SPEDIZIONI], {
      'Quanto costano i cornetti?': CORNETTO,
      'Quando parte la spedizione?': SPEDIZIONI,
    });
  });

  it('German inflections: "Lieferungen" finds "Lieferung", "Öffnungszeit" finds "Öffnungszeiten"', async () => {
    const HOURS = 'Unsere Öffnungszeiten: Montag bis Freitag.';
    const id = await findingOnly({ language: 'de' }, [LIEFERUNG, HOURS], {
      'Wie lange brauchen Lieferungen?': LIEFERUNG,
    });
    expect(await found(id, 'Welche Öffnungszeit gilt am Montag?')).toContain(HOURS);
  });

  it('an agent on `auto` finds forms of other languages ("cornetti", "Lieferungen")', async () => {
    const cornetto = 'Il cornetto alla crema costa 1,50 euro e lo trovate al banco.';
    const lieferung = 'Die Lieferung dauert zwei Werktage und ist für Sie kostenlos.';
    const id = await findingOnly({ language: 'auto' }, [cornetto, lieferung, SHIPPING], {
      'Wie lange dauern die Lieferungen?': lieferung,
    });
    // the Italian question is searched by its Italian stems too: "costano" is "cost", as the English
    // passage's "cost" is, which comes second
    expect((await found(id, 'Quanto costano i cornetti?'))[0]).toBe(cornetto);
    // the Italian passage is stemmed in Italian: its "costa" is "cost" too, and comes second
    expect((await found(id, 'What are the shipping costs?'))[0]).toBe(SHIPPING);
  });

  it('an agent on `auto` stems each passage in the language it is written in, and a question in English and its own', async () => {
    const spedizioni = 'Le spedizioni partono ogni lunedì con il corriere.';
    // "partiranno" and "partono" are both "part" in Italian; too far apart for the typo look-up
    await findingOnly({ language: 'auto' }, [spedizioni, SHIPPING], {
      'Quando partiranno le spedizioni?': spedizioni,
      'Quando partiranno?': spedizioni,
      'What are the shipping costs?': SHIPPING,
    });
  });

  it('a typo finds the word the passages have ("croisants", "delivrey")', async () => {
    const delivery = 'Delivery takes two days.';
    await findingOnly({}, [CROISSANT, delivery], {
      'Do you sell croisants?': CROISSANT,
      'how long is delivrey': delivery,
    });
  });

  it('the owner\'s synonyms: "cornetto = croissant" finds either from the other, phrases too', async () => {
    const id = await agentWith({ language: 'it', synonyms: ['cornetto = croissant', 'buono regalo = gift card'] }, [
      'Cornetti freschi ogni mattina.',
      'Vendiamo buoni regalo da 20 euro.',
      ...DISTRACTORS,
    ]);
    expect(await found(id, 'Avete croissant?')).toEqual(['Cornetti freschi ogni mattina.']);
    expect(await found(id, 'Do you sell a gift card?')).toEqual(['Vendiamo buoni regalo da 20 euro.']);
    // without the synonym the same question finds nothing
    const res = await putAgent(t, token, id, { synonyms: [] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await found(id, 'Avete croissant?')).toEqual([]);
  });

  it('the built-in lexicon: "price" finds "cost", "wrote" finds "written"; a word neither said stays unknown', async () => {
    const id = await agentWith({ language: 'en' }, [
      'The basic plan costs 10 euros a month.',
      'The library was written by two students in 1993.',
      ...DISTRACTORS,
    ]);
    expect(await found(id, 'What is the price?')).toEqual(['The basic plan costs 10 euros a month.']);
    expect(await found(id, 'Who wrote it?')).toEqual(['The library was written by two students in 1993.']);
    // a lexicon word is known when the knowledge says it in another of its group's words, and only then
    expect([...keywordSearchService(t).unknownWords(id, 'What is the fee?')]).toEqual([]);
    const other = await agentWith({ language: 'en' }, DISTRACTORS);
    expect([...keywordSearchService(t).unknownWords(other, 'What is the fee?')]).toEqual(['fee']);
  });

  it("an agent's new language stems its passages again", async () => {
    const id = await agentWith({}, [CORNETTO, ...DISTRACTORS]);
    const res = await putAgent(t, token, id, { language: 'it' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await found(id, 'cornetti?')).toEqual([CORNETTO]);
    t.database.sqlite.prepare("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)").run();
  });
});

describe('synonyms setting', () => {
  let t: TestApp;
  let token: string;
  let agentId: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = (await registerUser(t.app)).token;
    agentId = (await createAgent(t.app, token)).id;
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  const put = (payload: Record<string, unknown>) => putAgent(t, token, agentId, payload);

  it('stores each line as "a = b", commas read as "=", blank and repeated lines dropped', async () => {
    const res = await put({ synonyms: [' cornetto =croissant ', 'gift  card, voucher', '', 'cornetto = croissant'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().synonyms).toEqual(['cornetto = croissant', 'gift card = voucher']);
    const again = await t.app.inject({ method: 'GET', url: `/api/chatbots/${agentId}`, headers: auth(token) });
    expect(again.json().synonyms).toEqual(['cornetto = croissant', 'gift card = voucher']);
  });

  it.each([
    [['cornetto'], 'two or more words'],
    [['cornetto = '], 'two or more words'],
    [['= ='], 'two or more words'],
    [[`a = ${'b'.repeat(61)}`], 'at most 60 characters'],
    [['a = ?!'], 'letter or digit'],
    [[Array.from({ length: 11 }, (_, i) => `w${i}`).join(' = ')], 'at most 10'],
    [Array.from({ length: 101 }, (_, i) => `a${i} = b${i}`), 'at most 100 lines'],
    [['x'.repeat(301)], 'synonyms'],
    ['cornetto = croissant', 'synonyms'],
  ])('refuses %j with 400 and a clear detail', async (value, detail) => {
    const res = await put({ synonyms: value });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().detail).toContain('synonyms');
    expect(res.json().detail).toContain(detail);
  });
});

describe('the keyword index from before stemming (migration 0027)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('stems the passages a database already had, each in its agent language', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vocabulary-'));
    dirs.push(dir);
    const file = path.join(dir, 'chat-agent.db');
    // the migrations before 0027, as a database of the release before has them
    const older = path.join(dir, 'migrations');
    cpSync(migrationsDir(), older, { recursive: true });
    const journalFile = path.join(older, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
    journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < '0027');
    writeFileSync(journalFile, JSON.stringify(journal));
    const sqlite = openSqlite(file);
    sqlite.pragma('foreign_keys = ON');
    migrate(drizzle(sqlite), { migrationsFolder: older });
    const [cornetto] = seedAgent(sqlite, 'agent-it', ['Il cornetto alla crema costa 1,50 euro.', 'Orari: dalle 7.']);
    const [lieferung] = seedAgent(sqlite, 'agent-de', ['Die Lieferung dauert zwei Werktage.']);
    const [croissant] = seedAgent(sqlite, 'agent-auto', ['A fresh croissant every morning.']);
    sqlite.prepare("UPDATE chatbots SET language = 'it' WHERE id = 'agent-it'").run();
    sqlite.prepare("UPDATE chatbots SET language = 'de' WHERE id = 'agent-de'").run();
    sqlite.close();

    const database = openDatabase(file);
    try {
      const repo = new KnowledgeRepo(database.db);
      const hits = (agent: string, language: string, question: string) =>
        repo.keywordSearch(agent, ftsQuery(question, { language })!, 20).map((h) => h.chunkId);
      expect(hits('agent-it', 'it', 'cornetti?')).toEqual([cornetto]);
      expect(hits('agent-de', 'de', 'Lieferungen?')).toEqual([lieferung]);
      expect(hits('agent-auto', 'auto', 'croissants?')).toEqual([croissant]);
      expect(hits('agent-de', 'de', 'cornetti?')).toEqual([]);
      database.sqlite.prepare("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)").run();
      // passages stored, changed and deleted afterwards keep the index whole
      database.sqlite.prepare("UPDATE chunks SET content = 'Cornetti vuoti' WHERE id = ?").run(cornetto);
      expect(hits('agent-it', 'it', 'cornetto')).toEqual([cornetto]);
      database.sqlite.prepare("DELETE FROM chatbots WHERE id = 'agent-it'").run();
      expect(hits('agent-it', 'it', 'cornetto')).toEqual([]);
      expect(database.sqlite.prepare('SELECT count(*) FROM chunks_fts').pluck().get()).toBe(2);
    } finally {
      database.close();
    }
  });
});

describe('the keyword query', () => {
  it('stems each word in the language given; `auto` and unknown ones as English', () => {
    // "cost" brings its paraphrases (the built-in lexicon, platform/text/paraphrases.ts)
    expect(ftsQuery('shipping costs', { language: 'auto' })).toBe(
      '"ship" OR "cost" OR "ship cost" OR "price" OR "fee" OR "charg" OR "deliv" OR "deliveri"',
    );
    expect(ftsQuery('cornetti spedizioni', { language: 'it' })).toBe('"cornett" OR "spedizion" OR "cornett spedizion"');
    expect(ftsQuery('Lieferungen', { language: 'xx' })).toBe('"lieferungen"');
    expect(ftsQuery('Lieferungen', { language: 'de' })).toBe('"liefer"');
  });

  it("matches an owner's Q&A question in other inflections of its words (Q&A first)", () => {
    expect(qaMatches('What does a croissant cost?', 'croissants costs?', 'en')).toBe(true);
    expect(qaMatches('Quanto costa un cornetto?', 'quanto costano i cornetti', 'it')).toBe(true);
    expect(qaMatches('Wie lange dauert die Lieferung?', 'Lieferungen dauern lange?', 'de')).toBe(true);
    expect(qaMatches('What does a croissant cost?', 'parking?', 'en')).toBe(false);
  });

  it('adds the index terms near a word of four or more letters, when asked', () => {
    const asked: string[] = [];
    const nearTerms = (stem: string) => {
      asked.push(stem);
      return stem === 'croisant' ? ['croissant'] : [];
    };
    expect(ftsQuery('Any croisants or tea?', { nearTerms })).toBe('"croisant" OR "tea" OR "croissant"');
    expect(asked).toEqual(['croisant']);
  });

  it('edit distance counts a swap of two letters as one edit and stops past the bound', () => {
    expect(editDistance('delivrey', 'deliveri', 2)).toBe(2);
    expect(editDistance('croisant', 'croissant', 2)).toBe(1);
    expect(editDistance('abcd', 'abdc', 1)).toBe(1);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });
});
