import { AgentsRepo, AgentsService } from '../../src/modules/agents/index.js';
import { KnowledgeService } from '../../src/modules/knowledge/index.js';
import { KnowledgeRepo } from '../../src/modules/knowledge/repo.js';
import { PlanService } from '../../src/modules/limits/index.js';
import type { TestApp } from './app.js';

/**
 * A keyword-only search service of its own on the test app's database: what it keeps between
 * questions starts empty, whatever the app's own services read before.
 */
export function keywordSearchService(t: TestApp): KnowledgeService {
  return new KnowledgeService({
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
}
