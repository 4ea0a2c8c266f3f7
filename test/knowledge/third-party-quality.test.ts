import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createAgent, multipartForm, registerUser, startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.js';
import { type LocalSite, startLocalSite } from '../helpers/local-site.js';

/**
 * Retrieval and answers on real third-party documents (test/fixtures/third_party, sources and
 * licences in its README.md): excerpts of four PDFs as they were published (two Texinfo manuals
 * with running headers that change per chapter, a DocBook manual with chapter tables of contents,
 * a paper with a two-line title and its authors set large), a small crawl of the SQLite web site
 * (a FAQ, a price table, limits, use cases) and a Sphinx page whose headings end in "¶".
 *
 * Half the questions use the documents' words, half ask the way a visitor would; five cannot be
 * answered from them. Asked through the public chat route with no provider key (the quoted
 * answer) and with a fake OpenAI-shaped model (the answer's passage must be among those sent to
 * it). Prints the figures as a table; each has a floor a little below what the code reaches.
 */

const FIXTURES = path.resolve('test/fixtures/third_party');
const read = (name: string) => readFileSync(path.join(FIXTURES, name));

const PDFS = ['r-faq-excerpt.pdf', 'nettle-excerpt.pdf', 'bzip2-manual-excerpt.pdf', 'crc-paper-excerpt.pdf'];
const SQLITE_PAGES = ['faq', 'prosupport', 'limits', 'whentouse'];

interface Question {
  q: string;
  /** text the answer passage holds (compared with white space collapsed, case-insensitive); null: unanswerable */
  needle: string | null;
  kind: 'exact' | 'paraphrase' | 'none';
}

const QUESTIONS: Question[] = [
  // R FAQ (Texinfo; "Chapter 2: R Basics 5" at the top of its pages)
  { q: 'What is CRAN?', needle: 'Comprehensive R Archive Network', kind: 'exact' },
  { q: 'Why doesn’t R think these numbers are equal?', needle: '53 binary digits', kind: 'exact' },
  { q: 'How can I set components of a list to NULL?', needle: 'list(NULL)', kind: 'exact' },
  { q: 'What mailing lists exist for R?', needle: 'R-announce', kind: 'exact' },
  { q: 'How do I convert factors to numeric?', needle: 'as.numeric(as.character(f))', kind: 'exact' },
  { q: 'Why is .3 + .6 not the same as .9 in my calculation?', needle: '.3 + .6 == .9', kind: 'paraphrase' },
  { q: 'Who wrote R in the first place?', needle: 'Ross Ihaka and Robert Gentleman', kind: 'paraphrase' },
  { q: 'How do I remove all objects from my session?', needle: 'rm(list = ls(all.names = TRUE))', kind: 'paraphrase' },
  { q: 'My matrix became a vector when I took one row out of it', needle: 'drop = FALSE', kind: 'paraphrase' },
  { q: 'Can I get R for my Mac?', needle: 'Apple installer package', kind: 'paraphrase' },
  // Nettle manual (Texinfo, public domain)
  { q: 'Under which licenses is Nettle distributed?', needle: 'GNU Lesser General Public License', kind: 'exact' },
  { q: 'What is the struct tag for the context struct of an algorithm named foo?', needle: 'foo_ctx', kind: 'exact' },
  {
    q: 'Does the library allocate memory or do any input and output?',
    needle: 'memory allocation',
    kind: 'paraphrase',
  },
  { q: 'Which flags do I pass to the linker to use the crypto library?', needle: '-lnettle', kind: 'paraphrase' },
  // bzip2 manual (DocBook)
  { q: 'What does the --keep option do?', needle: 'Keep (don’t delete) input files', kind: 'exact' },
  { q: 'Which algorithm does bzip2 use to compress files?', needle: 'Burrows-Wheeler', kind: 'exact' },
  { q: 'Will bzip2 replace files that are already there?', needle: 'not overwrite existing files', kind: 'paraphrase' },
  { q: 'How much memory does compressing with big blocks take?', needle: 'block size', kind: 'paraphrase' },
  // CRC paper
  { q: 'How many CPU cycles per byte does the CRC algorithm need?', needle: '1.2 CPU cycles per byte', kind: 'exact' },
  { q: 'How fast is the new checksum code on Intel and AMD chips?', needle: '1.2 CPU cycles', kind: 'paraphrase' },
  // SQLite web site: FAQ, price table, limits, use cases
  { q: 'How do I create an AUTOINCREMENT field?', needle: 'INTEGER PRIMARY KEY', kind: 'exact' },
  { q: 'What datatypes does SQLite support?', needle: 'dynamic typing', kind: 'exact' },
  { q: 'How much does the SQLite Encryption Extension cost?', needle: '$2000', kind: 'exact' },
  { q: 'What is the default setting for SQLITE_MAX_COLUMN?', needle: 'is 2000', kind: 'exact' },
  { q: 'Does SQLite work for websites?', needle: '100K hits/day', kind: 'exact' },
  {
    q: 'Why can I store a string in a column declared as integer?',
    needle: 'This is a feature, not a bug',
    kind: 'paraphrase',
  },
  { q: 'What is the price of a perpetual right-to-use license?', needle: '$6000', kind: 'paraphrase' },
  { q: 'Where can I get free help with SQLite?', needle: 'SQLite Forum', kind: 'paraphrase' },
  { q: 'How long may a text value be at most?', needle: '1 billion', kind: 'paraphrase' },
  { q: 'How many visitors a day can my site have with SQLite behind it?', needle: '100K hits/day', kind: 'paraphrase' },
  // Debian Python Policy (Sphinx)
  { q: 'Where must public Python 3 modules be installed?', needle: '/usr/lib/python3/dist-packages', kind: 'exact' },
  {
    q: 'What should the first line of a Python program look like?',
    needle: 'interpreter directive',
    kind: 'paraphrase',
  },
  // nothing in the documents answers these
  { q: 'Do you ship to Canada?', needle: null, kind: 'none' },
  { q: 'What are your opening hours on Sunday?', needle: null, kind: 'none' },
  { q: 'Can I pay by PayPal?', needle: null, kind: 'none' },
  { q: 'Is there a discount for students?', needle: null, kind: 'none' },
  { q: 'How do I book a table for four people?', needle: null, kind: 'none' },
];

/** running header and footer lines of the excerpts, as they must never appear in a passage */
const RUNNING_LINES =
  /Chapter \d+: (?:Introduction|R Basics|R Miscellanea|Copyright|Conventions|Example|Linking|Compatibility)\b|Function and Concept Index \d|(?:^|\n)(?:How to use bzip2|Programming with libbzip2)(?:\n|$)/;
/** what a table of contents or an index leaves: dot leaders, its heading, long entries cut short */
const TOC_OR_INDEX =
  /(?:\s?\.){5,}|Table of Contents|Function and Concept Index|7\.18 Why does the output from anova\(\) depend/;

const squash = (s: string) => s.replace(/\s+/g, ' ').toLowerCase();
const contains = (text: string, needle: string) => squash(text).includes(squash(needle));
const rate = (xs: boolean[]) => (xs.length ? Math.round((xs.filter(Boolean).length / xs.length) * 100) / 100 : 0);

async function waitForSources(t: TestApp, token: string, chatbotId: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${chatbotId}`, headers: auth(token) });
    const list = res.json() as Array<{ name: string; status: string; error_message: string | null }>;
    if (list.length === count && list.every((s) => s.status === 'completed')) return;
    if (list.some((s) => s.status === 'failed') || Date.now() > deadline)
      throw new Error(
        `sources did not all complete: ${JSON.stringify(list.map((s) => [s.name, s.status, s.error_message]))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** the documents into one agent through the routes a user takes: file uploads and two crawls */
async function ingest(t: TestApp, sqlite: LocalSite, sphinx: LocalSite): Promise<string> {
  const { token } = await registerUser(t.app);
  const chatbotId = (await createAgent(t.app, token)).id as string;
  for (const name of PDFS) {
    const form = await multipartForm({ file: { filename: name, content: new Uint8Array(read(name)) } });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${chatbotId}/file`,
      headers: { ...auth(token), ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode, `${name}: ${res.body}`).toBe(201);
  }
  for (const [site, maxPages] of [
    [sqlite, 12],
    [sphinx, 1],
  ] as const) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${chatbotId}/website`,
      headers: auth(token),
      payload: { url: `${site.url}/`, max_pages: maxPages },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  await waitForSources(t, token, chatbotId, PDFS.length + 2);
  return chatbotId;
}

interface Stored {
  content: string;
  heading: string | null;
  source: string;
  type: string;
}

function storedPassages(t: TestApp, chatbotId: string): Stored[] {
  return t.database.sqlite
    .prepare(
      'SELECT c.content AS content, c.heading AS heading, s.name AS source, s.type AS type FROM chunks c JOIN sources s ON s.id = c.source_id WHERE c.chatbot_id = ? ORDER BY s.name, c.ordinal',
    )
    .all(chatbotId) as Stored[];
}

describe('answers from real third-party documents', () => {
  let sqlite: LocalSite;
  let sphinx: LocalSite;
  let plain: TestApp;
  let withModel: TestApp;
  let fake: FakeLlm;
  let plainBot: string;
  let modelBot: string;

  beforeAll(async () => {
    const pages: Record<string, string | { body: string; type: string }> = {
      '/': read('sqlite-index.html').toString('utf8'),
    };
    for (const page of SQLITE_PAGES) pages[`/${page}.html`] = read(`sqlite-${page}.html`).toString('utf8');
    sqlite = await startLocalSite(pages);
    const locs = Object.keys(pages).map((p) => `<url><loc>${sqlite.url}${p}</loc></url>`);
    // the pages are the site's own; the sitemap lists them (read when the crawl starts)
    pages['/sitemap.xml'] = {
      type: 'application/xml',
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join('')}</urlset>`,
    };
    sphinx = await startLocalSite({ '/': read('debian-python-policy.html').toString('utf8') });
    fake = await startFakeLlm('openai', { reply: 'Here is what the documents say.' });
    plain = await startTestApp({ env: { ALLOW_PRIVATE_URLS: 'true' } });
    withModel = await startTestApp({
      env: { ALLOW_PRIVATE_URLS: 'true', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL },
    });
    [plainBot, modelBot] = await Promise.all([ingest(plain, sqlite, sphinx), ingest(withModel, sqlite, sphinx)]);
  }, 120_000);

  afterAll(async () => {
    await plain?.cleanup();
    await withModel?.cleanup();
    await sqlite?.close();
    await sphinx?.close();
    await fake?.close();
  }, 60_000);

  it('keeps running headers, tables of contents, indexes and permalink marks out of the passages', () => {
    const stored = storedPassages(plain, plainBot);
    const pdf = stored.filter((p) => p.source.endsWith('.pdf') || p.type === 'file');
    const count = (list: Stored[], pred: (p: Stored) => boolean) => list.filter(pred).length;
    const headings = [...new Set(stored.map((p) => p.heading ?? ''))];
    const figures = {
      passages: stored.length,
      pdf_passages: pdf.length,
      running_header_passages: count(pdf, (p) => RUNNING_LINES.test(p.content)),
      toc_or_index_passages: count(pdf, (p) => TOC_OR_INDEX.test(p.content)),
      pilcrow_passages: count(stored, (p) => p.content.includes('¶') || (p.heading ?? '').includes('¶')),
      author_as_section: count(stored, (p) => /Hornik|Kadatch|R Core Team|September 3, 2010/.test(p.heading ?? '')),
      wrapped_heading_cut: count(stored, (p) =>
        /(?:^|> )(?:forget|simulation\?|into a separate file\?)$/.test(p.heading ?? ''),
      ),
    };
    console.table(figures);
    const offending = stored
      .filter((p) => RUNNING_LINES.test(p.content) || TOC_OR_INDEX.test(p.content) || p.content.includes('¶'))
      .map((p) => `${p.source} [${p.heading}]: ${p.content.slice(0, 160)}`);
    expect(offending, offending.join('\n---\n')).toEqual([]);
    expect(figures.running_header_passages).toBe(0);
    expect(figures.toc_or_index_passages).toBe(0);
    expect(figures.pilcrow_passages).toBe(0);
    expect(figures.author_as_section, headings.join('\n')).toBe(0);
    expect(figures.wrapped_heading_cut, headings.join('\n')).toBe(0);
    // the two-line headings read whole
    expect(headings.some((h) => h.includes('Everything we know about CRC but afraid to forget'))).toBe(true);
    expect(headings.some((h) => h.includes('7.32 How can I capture or ignore errors in a long simulation?'))).toBe(
      true,
    );
  });

  it('answers in the documents’ words and in a visitor’s, and says nothing for what they do not hold', async () => {
    type Row = { q: string; kind: Question['kind']; stored: boolean; quoted: boolean; sent: boolean; silent: boolean };
    const rows: Row[] = [];
    const plainStored = storedPassages(plain, plainBot);
    for (const [i, question] of QUESTIONS.entries()) {
      const ask = (t: TestApp, bot: string) =>
        t.app.inject({
          method: 'POST',
          url: `/api/public/chat/${bot}`,
          payload: { message: question.q, session_id: `third-party-${i}` },
        });
      const noKey = await ask(plain, plainBot);
      expect(noKey.statusCode, noKey.body).toBe(200);
      const answer = noKey.json() as { message: string; sources: unknown[] };
      const before = fake.requests.length;
      const modelRes = await ask(withModel, modelBot);
      expect(modelRes.statusCode, modelRes.body).toBe(200);
      const sentText = fake.requests
        .slice(before)
        .filter((r) => r.kind === 'chat')
        .map((r) => JSON.stringify(r.body?.messages ?? r.body))
        .join('\n')
        // the request is JSON: its strings escaped
        .replace(/\\n/g, '\n')
        .replace(/\\"/g, '"')
        .replace(/\\u2019/g, '’');
      const needle = question.needle;
      rows.push({
        q: question.q,
        kind: question.kind,
        stored: needle === null || plainStored.some((p) => contains(p.content, needle)),
        quoted: needle !== null && contains(answer.message, needle),
        sent: needle !== null && contains(sentText, needle),
        silent: answer.sources.length === 0,
      });
    }
    const of = (kind: Question['kind']) => rows.filter((r) => r.kind === kind);
    const answerable = rows.filter((r) => r.kind !== 'none');
    const figures = {
      questions: rows.length,
      needle_stored: rate(answerable.map((r) => r.stored)),
      no_key_quoted_exact: rate(of('exact').map((r) => r.quoted)),
      no_key_quoted_paraphrase: rate(of('paraphrase').map((r) => r.quoted)),
      model_sent_exact: rate(of('exact').map((r) => r.sent)),
      model_sent_paraphrase: rate(of('paraphrase').map((r) => r.sent)),
      unanswerable_no_sources: rate(of('none').map((r) => r.silent)),
    };
    console.table(figures);
    console.table(
      rows.map((r) => ({ q: r.q.slice(0, 60), kind: r.kind, stored: r.stored, quoted: r.quoted, sent: r.sent })),
    );

    expect(figures.needle_stored).toBe(1);
    expect(figures.no_key_quoted_exact).toBeGreaterThanOrEqual(FLOORS.no_key_quoted_exact);
    expect(figures.no_key_quoted_paraphrase).toBeGreaterThanOrEqual(FLOORS.no_key_quoted_paraphrase);
    expect(figures.model_sent_exact).toBeGreaterThanOrEqual(FLOORS.model_sent_exact);
    expect(figures.model_sent_paraphrase).toBeGreaterThanOrEqual(FLOORS.model_sent_paraphrase);
    expect(figures.unanswerable_no_sources).toBeGreaterThanOrEqual(FLOORS.unanswerable_no_sources);
  }, 120_000);
});

/**
 * A little below what the code reaches (one question is 0.06 of a kind). Measured with keyword
 * search (no embeddings): quoted without a key 0.75 exact, 0.5 paraphrased; passage sent to the
 * model 0.88 exact, 0.75 paraphrased; 2 of the 5 unanswerable questions got no sources. Before the
 * PDF noise was removed: 0.63, 0.5, 0.94, 0.81, 0.4 (keyword ranking moves with the passages
 * around: the header-free corpus loses two model questions and gains two quoted ones).
 * With the answer composition and the stemmed, typo-tolerant keyword index merged: 0.81, 0.38,
 * 0.88, 0.75, 0.4 (0.75 and 0.44 quoted before the index changed: "Which algorithm does bzip2
 * use" is now quoted; "memory ... big blocks" now also finds a passage on
 * big differences between block ciphers, whose sentence outscores the answer's and holds too
 * little of the question, so the answer is the no-answer message).
 * With a question word the agent's whole knowledge holds nowhere weighing more than any held word
 * ("Canada", "PayPal", "discount"): 0.81, 0.38, 0.88, 0.75, 1 (5 of 5 unanswerable questions
 * get the no-answer message; the floor is 1: each of the five is a question of its own).
 * With the best sentence's paragraph going on by one sentence holding a question word: 0.94,
 * 0.38, 0.88, 0.75, 1 ("… 53 binary digits", "… fewer than 100K hits/day" now quoted).
 * With a table row quoted whole, not cut at the periods in its cells: 1, 0.38, 0.88, 0.75, 1 (the
 * Encryption Extension's row now holds its "$2000 one time fee").
 * With each index's two best hits kept among the five passages the model reads (rank fusion
 * buried the keyword index's first hit under passages the fake embedder's random vectors ranked
 * middling): 1, 0.38, 1, 0.88, 1. With the built-in lexicon of paraphrases ("price" = "cost",
 * "help" = "support"): 0.5 paraphrased; with a passage standing out among the candidates answering
 * by a sentence holding a third of the question: 0.56; with "big" = "large" in the lexicon: 1,
 * 0.63, 1, 0.88, 1.
 */
const FLOORS = {
  no_key_quoted_exact: 0.95,
  no_key_quoted_paraphrase: 0.62,
  model_sent_exact: 0.95,
  model_sent_paraphrase: 0.85,
  unanswerable_no_sources: 1,
};
