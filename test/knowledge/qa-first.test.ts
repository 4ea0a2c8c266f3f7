import { describe, expect, it } from 'vitest';
import { auth, createAgent, registerUser, type TestApp, useTestApps } from '../helpers/app.js';
import { keywordSearchService } from '../helpers/knowledge-service.js';

/**
 * Q&A first: a Q&A pair whose question matches the visitor's goes ahead of passages the keyword
 * search ranks higher. The search knows which agents hold no Q&A pair and skips reading the
 * candidates' questions for them; a pair added after the agent was asked must count at once.
 */
describe('a Q&A pair goes first', () => {
  const apps = useTestApps();

  const QUESTION = 'Do you make vegan cornetti with oat milk?';
  // every word of the question, several times: the keyword search ranks this first
  const TEXT =
    'Vegan cornetti with oat milk: we make vegan cornetti, oat milk cornetti and vegan oat milk ' +
    'cornetti; do ask about vegan cornetti made with oat milk.';

  async function post(
    t: TestApp,
    token: string,
    url: string,
    payload: Record<string, string>,
    method: 'POST' | 'PUT' = 'POST',
  ) {
    const res = await t.app.inject({ method, url, headers: auth(token), payload });
    expect(res.statusCode, res.body).toBe(method === 'POST' ? 201 : 200);
    return res.json();
  }

  it('also when the pair is added after the agent was asked, and no longer once its question changed', async () => {
    const t = await apps.start();
    const { token } = await registerUser(t.app);
    const agent = await createAgent(t.app, token);
    await post(t, token, `/api/sources/chatbot/${agent.id}/text`, { name: 'Bakery', content: TEXT });
    // one search service for the whole test: what it keeps between questions is what is tested
    const knowledge = keywordSearchService(t);
    const first = async () => (await knowledge.search(agent.id, QUESTION, 5))[0]!;

    expect((await first()).qa).toBeNull();
    const pair = await post(t, token, `/api/sources/chatbot/${agent.id}/qa`, {
      question: 'Do you make vegan cornetti?',
      answer: 'Yes, every morning.',
    });
    expect(await first()).toMatchObject({
      qa: { question: 'Do you make vegan cornetti?', answer: 'Yes, every morning.' },
      qaAnswer: 'Yes, every morning.',
    });
    // the keyword search alone puts the text first: the pair went ahead because its question matched
    await post(t, token, `/api/sources/${pair.id}/qa`, { question: 'Do you sell gluten-free bread?' }, 'PUT');
    expect((await first()).qa).toBeNull();
  });
});
