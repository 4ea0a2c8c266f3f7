import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentsRepo, AgentsService } from '../../src/modules/agents/index.js';
import { KnowledgeService } from '../../src/modules/knowledge/index.js';
import { KnowledgeRepo } from '../../src/modules/knowledge/repo.js';
import { VectorIndex } from '../../src/modules/knowledge/vector-index.js';
import { PlanService } from '../../src/modules/limits/index.js';
import { createEmbedder } from '../../src/providers/embeddings/index.js';
import { auth, createAgent, registerUser, startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.js';

/**
 * Issue 33: hybrid search keeps each index's two best hits among the passages it returns. Rank
 * fusion (k = 60) is flat: passages both indexes rank middling outrank either index's first hit,
 * and with an embedder that places the question near the wrong passages (here: every "decoy"),
 * the one passage the keyword index is surest of would never reach the model.
 */

/** the question and the decoys point one way, every other text another */
function misleadingEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  v[text.startsWith('Which') || text.includes('decoy') ? 0 : 1] = 1;
  return v;
}

const TARGET = 'The project runs two mailing lists: one for announcements and one for help.';
const DECOYS = Array.from({ length: 25 }, (_, i) => `Shopping decoy ${i}: lists of fruit, lists of bread, lists.`);

describe('hybrid search keeps each index’s best hits', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let chatbotId: string;

  beforeAll(async () => {
    fake = await startFakeLlm('openai', { embed: misleadingEmbedding, embeddingDimensions: 8 });
    t = await startTestApp({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseURL, EMBEDDINGS: 'openai' } });
    const { token } = await registerUser(t.app);
    chatbotId = (await createAgent(t.app, token)).id;
    for (const [i, content] of [TARGET, ...DECOYS].entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/sources/chatbot/${chatbotId}/text`,
        headers: auth(token),
        payload: { name: `passage-${i}`, content },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
    await fake?.close();
  }, 60_000);

  it('the keyword index’s first hit is returned though both indexes rank the decoys higher together', async () => {
    const embedder = createEmbedder(t.config)!;
    const search = new KnowledgeService({
      repo: new KnowledgeRepo(t.database.db),
      agents: new AgentsService({
        repo: new AgentsRepo(t.database.db),
        plans: new PlanService(t.config.plans, t.config.defaultPlan, t.clock),
        clock: t.clock,
      }),
      embedder,
      vectors: new VectorIndex({ sqlite: t.database.sqlite, embedderId: embedder.id, dimensions: embedder.dimensions }),
      clock: t.clock,
      log: t.app.log,
    });
    const found = await search.search(chatbotId, 'Which mailing lists are there?', 5);
    expect(found).toHaveLength(5);
    // found by keywords alone (the embedder placed it far from the question), among decoys
    const target = found.find((p) => p.content === TARGET);
    expect(target).toMatchObject({ keywordMatch: true, distance: null });
    expect(found.filter((p) => p.content.includes('decoy'))).toHaveLength(4);
    // a decoy both indexes found ranks above it: fusion alone would have left it out
    expect(found.findIndex((p) => p.keywordMatch && p.distance !== null)).toBeLessThan(found.indexOf(target!));
  });
});
