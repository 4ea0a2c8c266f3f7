import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentsRepo, AgentsService } from '../../src/modules/agents/index.js';
import { KnowledgeRepo, KnowledgeService, VectorIndex } from '../../src/modules/knowledge/index.js';
import { PlanService } from '../../src/modules/limits/index.js';
import { createEmbedder } from '../../src/providers/embeddings/index.js';
import { auth, createAgent, registerUser, startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

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

const DISTRACTOR_TOPICS = ['weather', 'history', 'team', 'mission', 'awards', 'partners', 'careers', 'press', 'events', 'blog'];
const DISTRACTORS = Array.from({ length: 40 }, (_, i) => {
  const topic = DISTRACTOR_TOPICS[i % DISTRACTOR_TOPICS.length];
  return `About our ${topic} (${i}): the company was founded by two friends and has grown every year since. ` +
    `Our ${topic} page tells the story of the team, the customers and the many people who helped along the way.`;
});

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
    const passages = [...ANSWERS.map((text, i) => ({ name: `answer-${i}`, text })), ...DISTRACTORS.map((text, i) => ({ name: `other-${i}`, text }))];
    sourceNameOfAnswer = ANSWERS.map((_, i) => `answer-${i}`);
    for (const p of passages) {
      const res = await t.app.inject({ method: 'POST', url: `/api/sources/chatbot/${chatbotId}/text`, headers: auth(token), payload: { name: p.name, content: p.text } });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t.cleanup();
    await fake.close();
  });

  function services() {
    const silent = t.app.log;
    const agents = new AgentsService(new AgentsRepo(t.database.db), new PlanService(t.config.plans, t.config.defaultPlan, t.clock), t.clock);
    const embedder = createEmbedder(t.config)!;
    const hybrid = new KnowledgeService(new KnowledgeRepo(t.database.db), agents, embedder, new VectorIndex(t.database.sqlite, embedder.id, embedder.dimensions), t.clock, silent);
    const keywordOnly = new KnowledgeService(new KnowledgeRepo(t.database.db), agents, null, null, t.clock, silent);
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
    const n = t.database.sqlite.prepare('SELECT count(*) AS n FROM chunks WHERE embedded_with IS NOT NULL').get() as { n: number };
    expect(n.n).toBe(60);
  });

  it('hybrid hit@5 is at least keyword-only hit@5, and finds the synonym questions keywords miss', async () => {
    const { hybrid, keywordOnly } = services();
    const keyword = await hitAt5(keywordOnly);
    const fused = await hitAt5(hybrid);
    const exactKeyword = await hitAt5(keywordOnly, QUESTIONS.slice(0, 10));
    const synonymKeyword = await hitAt5(keywordOnly, QUESTIONS.slice(10));
    const synonymHybrid = await hitAt5(hybrid, QUESTIONS.slice(10));
    console.log(JSON.stringify({ hit_at_5: { keyword_only: keyword, hybrid: fused, exact_terms_keyword_only: exactKeyword, synonyms_keyword_only: synonymKeyword, synonyms_hybrid: synonymHybrid } }));
    expect(exactKeyword).toBeGreaterThanOrEqual(0.9); // keyword-only is good on exact terms
    expect(fused).toBeGreaterThanOrEqual(keyword);
    expect(synonymHybrid).toBeGreaterThan(synonymKeyword);
    expect(fused).toBeGreaterThanOrEqual(0.9);
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
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'premium'")).toBe(0);
  });

  it('keyword retrieval is scoped to the agent', async () => {
    const { keywordOnly } = services();
    expect(await keywordOnly.search('some-other-agent', 'premium membership cost', 5)).toEqual([]);
  });
});
