import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { AppEvents } from '../../platform/events.js';
import { JobQueue } from '../../platform/jobs/queue.js';
import type { ProviderRegistry } from '../../providers/llm/registry.js';
import type { AgentsService } from '../agents/index.js';
import { visitorQuestions } from '../chat/index.js';
import type { KnowledgeService } from '../knowledge/index.js';
import type { PlanService } from '../limits/index.js';
import { AgentTestsRepo } from './repo.js';
import { TESTS_JOB, TestRunner } from './runner.js';
import { AgentTestsService } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the queue of automatic test runs (tests wait on `testJobs.idle()`) */
    testJobs: JobQueue;
  }
}

export interface AgentTestsDeps {
  db: Db;
  clock: Clock;
  events: AppEvents;
  agents: AgentsService;
  plans: PlanService;
  /** retrieval, and the providers as configured now: a test is asked as a chat turn asks */
  knowledge: KnowledgeService;
  providers: ProviderRegistry;
  /** the account's notice e-mails, queued in the caller's transaction */
  leads: { queueAccountNotice: (accountId: string, subject: string, body: string) => void };
  report: (what: string) => (err: unknown) => void;
}

/**
 * An agent's test questions and their runs, with the queue of the runs after knowledge changes
 * (one at a time: a run with the model asks it once per test).
 */
export function createAgentTests(app: FastifyInstance, deps: AgentTestsDeps) {
  const { db, clock } = deps;
  const repo = new AgentTestsRepo(db);
  const testJobs = new JobQueue(db, clock, app.log, {
    concurrency: 1,
    kinds: [TESTS_JOB],
    onError: (what, err) => deps.report(`test-run queue: ${what}`)(err),
  });
  app.decorate('testJobs', testJobs);
  const tests = new AgentTestsService({
    repo,
    agents: deps.agents,
    plans: deps.plans,
    clock,
    questionBefore: visitorQuestions(db).before,
  });
  const runner = new TestRunner({
    repo,
    agents: deps.agents,
    ask: { knowledge: deps.knowledge, providers: deps.providers.get },
    queue: testJobs,
    events: deps.events,
    clock,
    log: app.log,
    notice: (accountId, subject, body) => deps.leads.queueAccountNotice(accountId, subject, body),
  });
  // erasure (docs/API-NOTES.md "Erasure"): a test made from the erased conversation's answer holds the visitor's words
  deps.events.on('conversation.erased', (e) => repo.deleteByConversation(e.chatbot_id, e.conversation_id));
  app.addHook('onReady', async () => testJobs.start()); // picks up runs a previous process left due
  app.addHook('onClose', async () => testJobs.stop());
  return { tests, runner };
}
