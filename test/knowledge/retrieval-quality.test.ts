import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentsRepo, AgentsService } from '../../src/modules/agents/index.js';
import { KnowledgeService } from '../../src/modules/knowledge/index.js';
import { KnowledgeRepo } from '../../src/modules/knowledge/repo.js';
import { VectorIndex } from '../../src/modules/knowledge/vector-index.js';
import { PlanService } from '../../src/modules/limits/index.js';
import { createEmbedder } from '../../src/providers/embeddings/index.js';
import { auth, createAgent, multipartForm, registerUser, startTestApp, type TestApp } from '../helpers/app.js';
import { buildCorpus, MANUAL_HEADER, type Corpus, type CorpusQuestion } from '../helpers/corpus.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startLocalSite, type LocalSite } from '../helpers/local-site.js';

/**
 * Retrieval quality on a corpus built here: 20 answer passages among 40 distractors, 20 questions
 * with a known answer passage. Half the questions use the passage's own words (keyword search
 * should find them); half use synonyms (only meaning-based search can). The fake embedder is a
 * bag of concepts: synonyms share a dimension, like a real embedding model places them close.
 */

const CONCEPTS: string[][] = [
  ['price', 'prices', 'cost', 'costs', 'fee', 'fees', 'charge', 'pricing', 'expensive', 'pay'],
  ['refund', 'refunds', 'reimburse', 'reimbursement', 'money', 'back', 'return', 'returns'],
  ['deliver', 'delivery', 'shipping', 'ship', 'shipped', 'dispatch', 'courier', 'arrive'],
  ['open', 'opening', 'hours', 'schedule', 'times', 'closed', 'close'],
  ['cancel', 'cancellation', 'terminate', 'termination', 'stop', 'end'],
  ['password', 'credentials', 'login', 'sign', 'reset'],
  ['warranty', 'guarantee', 'guaranteed', 'coverage', 'defect', 'defects', 'broken'],
  ['location', 'address', 'located', 'find', 'office', 'where', 'directions'],
  ['phone', 'call', 'telephone', 'contact', 'reach', 'hotline'],
  ['discount', 'discounts', 'coupon', 'promotion', 'sale', 'cheaper', 'reduction'],
  ['vegan', 'plant', 'vegetarian', 'dairy', 'meat'],
  ['parking', 'car', 'park', 'garage', 'vehicle'],
  ['pet', 'pets', 'dog', 'dogs', 'cat', 'animal', 'animals'],
  ['student', 'students', 'university', 'school', 'pupil'],
  ['invoice', 'invoices', 'receipt', 'bill', 'billing'],
  ['gift', 'gifts', 'voucher', 'present', 'card'],
  ['accessible', 'accessibility', 'wheelchair', 'disabled', 'ramp', 'elevator'],
  ['children', 'kids', 'child', 'family', 'families', 'toddler'],
  ['data', 'privacy', 'personal', 'gdpr', 'information', 'delete'],
  ['wifi', 'internet', 'wireless', 'network', 'online'],
];
const CONCEPT_OF = new Map(CONCEPTS.flatMap((words, i) => words.map((w) => [w, i] as const)));

function conceptEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const concept = CONCEPT_OF.get(word);
    if (concept !== undefined) v[concept]! += 1;
    else {
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
      v[CONCEPTS.length + (h % (dimensions - CONCEPTS.length))]! += 0.15; // other words count a little
    }
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => Math.fround(x / norm));
}

const ANSWERS = [
  'Pricing: the basic membership costs 29 euros a month and the premium membership costs 49 euros a month.',
  'Refund policy: you can ask for a refund within 30 days of purchase and the money is returned to your card.',
  'Shipping: orders are shipped within two working days and delivery by courier takes three to five days.',
  'Opening hours: the shop is open from 9 to 18 on weekdays and from 10 to 16 on Saturday; closed on Sunday.',
  'Cancellation: a subscription can be cancelled at any time from the account page; the cancellation takes effect at the end of the month.',
  'Password reset: use the forgot password link on the login page and we e-mail you a reset link.',
  'Warranty: every device has a two year warranty covering manufacturing defects.',
  'Our office address is Harbour Street 12 in Rotterdam, next to the central station.',
  'Telephone hotline: call 010 123 4567 on weekdays between 9 and 17.',
  'Discounts: a promotion code gives 10 percent off your first order.',
  'Menu: all our soups are vegan and we offer a vegetarian lasagne.',
  'Parking: customers can use the underground garage for free for two hours.',
  'Pets: dogs are welcome in the shop if they are on a leash.',
  'Students get a 20 percent reduction with a valid university card.',
  'Invoices are sent by e-mail after every payment; you can download old invoices from the billing page.',
  'Gift vouchers are sold in the shop and online and are valid for one year.',
  'Accessibility: the building has a wheelchair ramp and an elevator to every floor.',
  'Children under six enter free; families get a discounted day ticket.',
  'Privacy: we store your personal data only for your orders and delete it on request under the GDPR.',
  'Free wifi is available in the whole building; the network name is GuestNet.',
];

const QUESTIONS: Array<{ q: string; answer: number }> = [
  // the passage's own words
  { q: 'How much does the premium membership cost?', answer: 0 },
  { q: 'What is the refund policy?', answer: 1 },
  { q: 'How long does courier delivery take?', answer: 2 },
  { q: 'What are the opening hours on Saturday?', answer: 3 },
  { q: 'How does subscription cancellation work?', answer: 4 },
  { q: 'I need a password reset link', answer: 5 },
  { q: 'What does the warranty cover?', answer: 6 },
  { q: 'Is there a telephone hotline?', answer: 8 },
  { q: 'Are the soups vegan?', answer: 10 },
  { q: 'Is the wifi free?', answer: 19 },
  // synonyms: the question shares (almost) no content word with its passage
  { q: 'What are your fees?', answer: 0 },
  { q: 'Can I get reimbursed?', answer: 1 },
  { q: 'When will my parcel arrive?', answer: 2 },
  { q: 'Where are you located?', answer: 7 },
  { q: 'Do you have a coupon?', answer: 9 },
  { q: 'Can I bring my car?', answer: 11 },
  { q: 'Can I bring my cat?', answer: 12 },
  { q: 'Is there something cheaper for pupils?', answer: 13 },
  { q: 'I lost my receipt', answer: 14 },
  { q: 'Can disabled people get in?', answer: 16 },
];

const DISTRACTOR_TOPICS = [
  'weather',
  'history',
  'team',
  'mission',
  'awards',
  'partners',
  'careers',
  'press',
  'events',
  'blog',
];
const DISTRACTORS = Array.from({ length: 40 }, (_, i) => {
  const topic = DISTRACTOR_TOPICS[i % DISTRACTOR_TOPICS.length];
  return (
    `About our ${topic} (${i}): the company was founded by two friends and has grown every year since. ` +
    `Our ${topic} page tells the story of the team, the customers and the many people who helped along the way.`
  );
});

/** The agents service over `t`'s database, and a knowledge service on it without embeddings (keyword search only). */
function keywordOnlyServices(t: TestApp) {
  const agents = new AgentsService({
    repo: new AgentsRepo(t.database.db),
    plans: new PlanService(t.config.plans, t.config.defaultPlan, t.clock),
    clock: t.clock,
  });
  const keywordOnly = new KnowledgeService({
    repo: new KnowledgeRepo(t.database.db),
    agents,
    embedder: null,
    vectors: null,
    clock: t.clock,
    log: t.app.log,
  });
  return { agents, keywordOnly };
}

describe('retrieval quality: keyword-only vs hybrid', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let chatbotId: string;
  let sourceNameOfAnswer: string[];
  let ownerToken: string;

  beforeAll(async () => {
    fake = await startFakeLlm('openai', { embed: conceptEmbedding });
    t = await startTestApp({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL, EMBEDDINGS: 'openai' } });
    const { token } = await registerUser(t.app);
    ownerToken = token;
    chatbotId = (await createAgent(t.app, token)).id;
    const passages = [
      ...ANSWERS.map((text, i) => ({ name: `answer-${i}`, text })),
      ...DISTRACTORS.map((text, i) => ({ name: `other-${i}`, text })),
    ];
    sourceNameOfAnswer = ANSWERS.map((_, i) => `answer-${i}`);
    for (const p of passages) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${chatbotId}/text`,
        headers: auth(token),
        payload: { name: p.name, content: p.text },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t.cleanup();
    await fake.close();
  }, 60_000);

  function services() {
    const { agents, keywordOnly } = keywordOnlyServices(t);
    const embedder = createEmbedder(t.config)!;
    const hybrid = new KnowledgeService({
      repo: new KnowledgeRepo(t.database.db),
      agents,
      embedder,
      vectors: new VectorIndex({ sqlite: t.database.sqlite, embedderId: embedder.id, dimensions: embedder.dimensions }),
      clock: t.clock,
      log: t.app.log,
    });
    return { hybrid, keywordOnly };
  }

  async function hitAt5(service: KnowledgeService, questions = QUESTIONS): Promise<number> {
    let hits = 0;
    for (const { q, answer } of questions) {
      const top = await service.search(chatbotId, q, 5);
      if (top.some((p) => p.sourceName === sourceNameOfAnswer[answer])) hits++;
    }
    return hits / questions.length;
  }

  it('stores every passage with a vector (60 passages, batched embedding calls)', () => {
    const n = t.database.sqlite.prepare('SELECT count(*) AS n FROM chunks WHERE embedded_with IS NOT NULL').get() as {
      n: number;
    };
    expect(n.n).toBe(60);
  });

  it('hybrid hit@5 is at least keyword-only hit@5, and finds the synonym questions keywords miss', async () => {
    const { hybrid, keywordOnly } = services();
    const keyword = await hitAt5(keywordOnly);
    const fused = await hitAt5(hybrid);
    const exactKeyword = await hitAt5(keywordOnly, QUESTIONS.slice(0, 10));
    const synonymKeyword = await hitAt5(keywordOnly, QUESTIONS.slice(10));
    const synonymHybrid = await hitAt5(hybrid, QUESTIONS.slice(10));
    console.log(
      JSON.stringify({
        hit_at_5: {
          keyword_only: keyword,
          hybrid: fused,
          exact_terms_keyword_only: exactKeyword,
          synonyms_keyword_only: synonymKeyword,
          synonyms_hybrid: synonymHybrid,
        },
      }),
    );
    expect(exactKeyword).toBeGreaterThanOrEqual(0.9); // keyword-only is good on exact terms
    expect(fused).toBeGreaterThanOrEqual(keyword);
    expect(synonymHybrid).toBeGreaterThan(synonymKeyword);
    // with each index's two best hits kept among the five and the built-in lexicon: 1 (0.95 before)
    expect(fused).toBeGreaterThanOrEqual(0.95);
  });

  it('deleting the agent removes its chunks, keyword index rows and vectors', async () => {
    const count = (sql: string) => (t.database.sqlite.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM chunk_vectors')).toBe(60);
    const owner = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(ownerToken) });
    expect(owner.json().map((a: { id: string }) => a.id)).toContain(chatbotId);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/chatbots/${chatbotId}`, headers: auth(ownerToken) });
    expect(del.statusCode).toBe(204);
    expect(count('SELECT count(*) AS n FROM chunks')).toBe(0);
    expect(count('SELECT count(*) AS n FROM sources')).toBe(0);
    expect(count('SELECT count(*) AS n FROM chunk_vectors')).toBe(0);
    expect(count('SELECT count(*) AS n FROM chunks_fts')).toBe(0);
  });

  it('keyword retrieval is scoped to the agent', async () => {
    const { keywordOnly } = services();
    expect(await keywordOnly.search('some-other-agent', 'premium membership cost', 5)).toEqual([]);
  });
});

/**
 * The same measures on documents as they come (test/helpers/corpus.ts): a PDF manual with running
 * header and footer, table of contents and hyphenated line ends, a two-column paper, a DOCX with
 * headings and a table, a long spreadsheet and CSV, an R-FAQ-like text, and a small web site
 * crawled from 127.0.0.1. No provider key: chat answers come from the knowledge base alone.
 * Prints one JSON line and writes it to test-artifacts/retrieval-corpus.json.
 */
describe('retrieval quality: a corpus of real-looking documents', () => {
  let t: TestApp;
  let site: LocalSite;
  let corpus: Corpus;
  let chatbotId: string;
  let websiteSourceId: string;

  beforeAll(async () => {
    corpus = await buildCorpus();
    site = await startLocalSite(corpus.site);
    t = await startTestApp({ env: { ALLOW_PRIVATE_URLS: 'true' } });
    const { token } = await registerUser(t.app);
    chatbotId = (await createAgent(t.app, token)).id;
    for (const file of corpus.files) {
      const form = await multipartForm({ file: { filename: file.name, content: file.content } });
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${chatbotId}/file`,
        headers: { ...auth(token), ...form.headers },
        payload: form.payload,
      });
      expect(res.statusCode, `${file.name}: ${res.body}`).toBe(201);
    }
    const web = await t.app.inject({
      method: 'POST',
      url: `/api/sources/chatbot/${chatbotId}/website`,
      headers: auth(token),
      payload: { url: `${site.url}/`, max_pages: 10 },
    });
    expect(web.statusCode, web.body).toBe(201);
    websiteSourceId = web.json().id;

    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${chatbotId}`, headers: auth(token) });
      const list = res.json() as Array<{
        name: string;
        status: string;
        error_message: string | null;
        progress: number;
      }>;
      if (list.length === corpus.files.length + 1 && list.every((s) => s.status === 'completed')) break;
      if (list.some((s) => s.status === 'failed') || Date.now() > deadline) {
        const states = list.map((s) => ({
          name: s.name,
          status: s.status,
          progress: s.progress,
          error: s.error_message,
        }));
        throw new Error(`sources did not all complete: ${JSON.stringify(states)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    await t?.cleanup();
  }, 60_000);

  const squash = (s: string) => s.replace(/\s+/g, ' ').toLowerCase();
  const contains = (text: string, needle: string) => squash(text).includes(squash(needle));
  const formatOf = (q: CorpusQuestion) =>
    q.source.startsWith('/') ? 'website' : q.source.slice(q.source.lastIndexOf('.') + 1);
  const rate = (xs: boolean[]) => (xs.length ? Math.round((xs.filter(Boolean).length / xs.length) * 100) / 100 : null);
  const samePath = (url: string, wanted: string) => {
    try {
      return (new URL(url).pathname.replace(/(.)\/$/, '$1') || '/') === wanted;
    } catch {
      return false;
    }
  };

  it('measures hit@5, answers without a model key, and the state of the stored passages', async () => {
    const { keywordOnly } = keywordOnlyServices(t);
    const titleOf = (pagePath: string) =>
      /<title>([^<]*)<\/title>/.exec(corpus.site[pagePath] ?? '')?.[1]?.trim() ?? '';
    const pageUrl = (pagePath: string) => `${site.url}${pagePath}`;
    /** whether a website passage comes from `pagePath`: its page URL field when Passage has one, else the URL or title line the crawl writes at the top of a page's text */
    const fromPage = (p: { content: string; sourceUrl: string | null }, pagePath: string) => {
      const explicit = (p as any).pageUrl as string | null | undefined;
      if (explicit) return samePath(explicit, pagePath);
      const lines = p.content.split('\n').map((l) => l.trim());
      return lines.includes(pageUrl(pagePath)) || (titleOf(pagePath) !== '' && lines.includes(titleOf(pagePath)));
    };

    const fileSourceIds = new Map(
      (
        t.database.sqlite
          .prepare("SELECT id, name FROM sources WHERE chatbot_id = ? AND type = 'file'")
          .all(chatbotId) as Array<{ id: string; name: string }>
      ).map((s) => [s.name, s.id]),
    );
    const stored = t.database.sqlite
      .prepare(
        'SELECT c.content AS content, s.name AS source, s.type AS type FROM chunks c JOIN sources s ON s.id = c.source_id WHERE c.chatbot_id = ? ORDER BY s.name, c.ordinal',
      )
      .all(chatbotId) as Array<{ content: string; source: string; type: string }>;

    type Row = {
      q: string;
      kind: CorpusQuestion['kind'];
      format: string;
      needle_stored?: boolean;
      hit?: boolean;
      from_page?: boolean;
      answer_visible?: boolean;
      cites_own_page?: boolean;
      fallback_ok?: boolean;
      /** the no-key answer, in the artifact for reading */
      answer?: string;
    };
    const rows: Row[] = [];
    for (const [i, q] of corpus.questions.entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/public/chat/${chatbotId}`,
        payload: { message: q.q, session_id: `corpus-${i}` },
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json() as {
        message: string;
        sources: Array<{ source_id: string; name: string; url: string | null }>;
      };
      if (q.kind === 'none') {
        rows.push({
          q: q.q,
          kind: q.kind,
          format: 'none',
          fallback_ok: answer.sources.length === 0,
          answer: answer.message,
        });
        continue;
      }
      const needle = q.needle!;
      const website = q.source.startsWith('/');
      // a file by its id (passages name a file as visitors see it: its title, not its file name)
      const fromSource = (p: { sourceId: string }) =>
        website ? p.sourceId === websiteSourceId : p.sourceId === fileSourceIds.get(q.source);
      const top = await keywordOnly.search(chatbotId, q.q, 5);
      const hits = top.filter((p) => fromSource(p) && contains(p.content, needle));
      const row: Row = {
        q: q.q,
        kind: q.kind,
        format: formatOf(q),
        needle_stored: stored.some(
          (c) => (website ? c.type === 'website' : c.source === q.source) && contains(c.content, needle),
        ),
        hit: hits.length > 0,
        answer_visible: contains(answer.message, needle),
        answer: answer.message,
      };
      if (website) {
        row.from_page = hits.some((p) => fromPage(p, q.source));
        row.cites_own_page = answer.sources.some((s) => s.url !== null && samePath(s.url, q.source));
      }
      rows.push(row);
    }

    const answerable = rows.filter((r) => r.kind !== 'none');
    const websiteRows = answerable.filter((r) => r.format === 'website');
    const formats = [...new Set(answerable.map((r) => r.format))];
    // a fact or word cut by white space (a line break or a space): what joining lines wrongly, or not joining them, leaves
    const broken: Record<string, RegExp> = {
      '$4. 99': /\$4\.\s+99/,
      'www. acme': /www\.\s+acme/,
      'as. numeric': /as\.\s+numeric/,
      'identi- cal': /identi-\s+cal/,
      'config- uration': /config-\s+uration/,
    };
    const count = (pred: (c: (typeof stored)[number]) => boolean) => stored.filter(pred).length;
    const figures = {
      corpus: {
        questions: rows.length,
        hit_at_5: rate(answerable.map((r) => r.hit!)),
        answer_visible: rate(answerable.map((r) => r.answer_visible!)),
        website_cites_own_page: rate(websiteRows.map((r) => r.cites_own_page!)),
        website_hit_from_own_page: rate(websiteRows.map((r) => r.from_page!)),
        no_match_fallback: rate(rows.filter((r) => r.kind === 'none').map((r) => r.fallback_ok!)),
        needle_stored: rate(answerable.map((r) => r.needle_stored!)),
        exact: {
          hit_at_5: rate(answerable.filter((r) => r.kind === 'exact').map((r) => r.hit!)),
          answer_visible: rate(answerable.filter((r) => r.kind === 'exact').map((r) => r.answer_visible!)),
        },
        paraphrase: {
          hit_at_5: rate(answerable.filter((r) => r.kind === 'paraphrase').map((r) => r.hit!)),
          answer_visible: rate(answerable.filter((r) => r.kind === 'paraphrase').map((r) => r.answer_visible!)),
        },
        by_format: Object.fromEntries(
          formats.map((f) => {
            const of = answerable.filter((r) => r.format === f);
            return [
              f,
              {
                questions: of.length,
                hit_at_5: rate(of.map((r) => r.hit!)),
                answer_visible: rate(of.map((r) => r.answer_visible!)),
              },
            ];
          }),
        ),
        passages: {
          total: stored.length,
          running_header: count(
            (c) => c.content.includes(MANUAL_HEADER) || /Acme X200 Router\W{0,5}User Manual/.test(c.content),
          ),
          page_footer: count((c) => /\bPage \d+ of \d+\b/.test(c.content)),
          dot_leaders: count((c) => /\.{6,}/.test(c.content)),
          broken_forms: count((c) => Object.values(broken).some((re) => re.test(c.content))),
          broken_by_form: Object.fromEntries(
            Object.entries(broken).map(([form, re]) => [form, count((c) => re.test(c.content))]),
          ),
          website_mid_sentence_start: count((c) => c.type === 'website' && /^[a-z]/.test(c.content.trimStart())),
          // a hard line wrap of the HTML source stored as a paragraph break inside a sentence
          website_mid_sentence_paragraph_break: count(
            (c) => c.type === 'website' && /[a-z,]\n\s*\n[a-z]/.test(c.content),
          ),
          website_with_menu: count((c) => c.type === 'website' && /Home\s*\|\s*Pricing/.test(c.content)),
        },
        misses: answerable.filter((r) => !r.hit).map((r) => r.q),
      },
    };
    console.log(JSON.stringify(figures));
    const artifacts = path.resolve('test-artifacts');
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(path.join(artifacts, 'retrieval-corpus.json'), `${JSON.stringify({ ...figures, rows }, null, 2)}\n`);
    // the passages themselves, to read what extraction made of each document
    writeFileSync(path.join(artifacts, 'retrieval-corpus-passages.json'), `${JSON.stringify(stored, null, 2)}\n`);

    // Before issue 19 (same corpus): hit@5 0.83, answer visible 0.23, own page cited 0, fallback
    // 0.2, needle stored 0.9; 7 passages with the running header, 3 of dot leaders, 2 broken words,
    // the menu in 5 website passages. After: 0.93, 0.8, 0.67, 1, 1, and none of those.
    // Issue 33 added the FAQ of corpus-faq.ts and questions in other words (51 questions). Before
    // its answer composition: answer visible 0.65 (exact 0.87, paraphrased 0.15), fallback 0.88.
    // After: 0.81 (exact 0.97, paraphrased 0.46), fallback 1. With the stemmed keyword index and the
    // answer reading words as it does: the same (hit@5 0.95, own page cited 0.71). With the built-in
    // lexicon of paraphrases (platform/text/paraphrases.ts) and the passage-level gate: hit@5 1,
    // answer visible 0.84 (exact 0.97, paraphrased 0.54).
    const c = figures.corpus;
    expect(c.questions).toBe(corpus.questions.length);
    expect(c.hit_at_5!).toBeGreaterThanOrEqual(0.97);
    expect(c.answer_visible!).toBeGreaterThanOrEqual(0.82);
    expect(c.exact.answer_visible!).toBeGreaterThanOrEqual(0.95);
    expect(c.paraphrase.answer_visible!).toBeGreaterThanOrEqual(0.5);
    expect(c.website_cites_own_page!).toBeGreaterThanOrEqual(0.65);
    expect(c.no_match_fallback!).toBe(1);
    expect(c.needle_stored!).toBe(1);
    const p = c.passages as Record<string, unknown>;
    for (const key of [
      'running_header',
      'page_footer',
      'dot_leaders',
      'broken_forms',
      'website_mid_sentence_start',
      'website_mid_sentence_paragraph_break',
      'website_with_menu',
    ]) {
      expect(p[key], key).toBe(0);
    }
  }, 120_000);
});
