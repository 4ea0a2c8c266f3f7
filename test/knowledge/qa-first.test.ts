import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentsRepo, AgentsService } from '../../src/modules/agents/index.js';
import { KnowledgeService } from '../../src/modules/knowledge/index.js';
import { KnowledgeRepo } from '../../src/modules/knowledge/repo.js';
import { PlanService } from '../../src/modules/limits/index.js';
import { auth, createAgent, registerUser, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * Q&A first: a Q&A pair whose question matches the visitor's goes ahead of passages the keyword
 * search ranks higher. The search knows which agents hold no Q&A pair and skips reading the
 * candidates' questions for them; a pair added after the agent was asked must count at once.
 */
describe('a Q&A pair goes first', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = (await registerUser(t.app)).token;
  }, 60_000);
  afterAll(async () => t.cleanup(), 60_000);

  const QUESTION = 'Do you make vegan cornetti with oat milk?';
  // every word of the question, several times: the keyword search ranks this first
  const TEXT =
    'Vegan cornetti with oat milk: we make vegan cornetti, oat milk cornetti and vegan oat milk ' +
    'cornetti; do ask about vegan cornetti made with oat milk.';

  async function post(url: string, payload: Record<string, string>, method: 'POST' | 'PUT' = 'POST') {
    const res = await t.app.inject({ method, url, headers: auth(token), payload });
    expect(res.statusCode, res.body).toBe(method === 'POST' ? 201 : 200);
    return res.json();
  }

  it('also when the pair is added after the agent was asked, and no longer once its question changed', async () => {
    const agent = await createAgent(t.app, token);
    await post(`/api/sources/chatbot/${agent.id}/text`, { name: 'Bakery', content: TEXT });
    // one search service for the whole test: what it keeps between questions is what is tested
    const knowledge = new KnowledgeService({
      repo: new KnowledgeRepo(t.database.db),
      agents: new AgentsService({
        repo: new AgentsRepo(t.database.db),
        plans: new PlanService(t.config.plans, t.config.defaultPlan, t.clock),
        clock: t.clock,
      }),
      embedder: null,
      vectors: null,
      clock: t.clock,
      log: t.app.log,
    });
    const first = async () => (await knowledge.search(agent.id, QUESTION, 5))[0]!;

    expect((await first()).qa).toBeNull();
    const pair = await post(`/api/sources/chatbot/${agent.id}/qa`, {
      question: 'Do you make vegan cornetti?',
      answer: 'Yes, every morning.',
    });
    expect(await first()).toMatchObject({
      qa: { question: 'Do you make vegan cornetti?', answer: 'Yes, every morning.' },
      qaAnswer: 'Yes, every morning.',
    });
    // the keyword search alone puts the text first: the pair went ahead because its question matched
    await post(`/api/sources/${pair.id}/qa`, { question: 'Do you sell gluten-free bread?' }, 'PUT');
    expect((await first()).qa).toBeNull();
  });
});
