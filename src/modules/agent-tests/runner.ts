import type { FastifyBaseLogger } from 'fastify';
import { type Clock, isoNow } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import { conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import { ProviderError } from '../../providers/llm/errors.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { type AskDeps, answerTestQuestion } from '../chat/index.js';
import { judge } from './judge.js';
import type { AgentTestsRepo } from './repo.js';
import type { AgentTestRow, AgentTestRunRow, StoredTestResult } from './tables.js';

export const TESTS_JOB = 'agent-tests-run';
/** an automatic run waits this long after the agent's last knowledge change (more changes push it back) */
export const AUTO_RUN_DEBOUNCE_MS = 60_000;

export interface TestRunnerDeps {
  repo: AgentTestsRepo;
  agents: AgentsService;
  /** retrieval and the agent's provider, as a chat turn asks (chat module) */
  ask: AskDeps;
  /** the queue of automatic runs (its job kind is registered here) */
  queue: JobQueue;
  events: AppEvents;
  clock: Clock;
  log: FastifyBaseLogger;
  /** an e-mail to the account's owner, queued in the caller's transaction (leads module) */
  notice: (accountId: string, subject: string, body: string) => void;
}

/**
 * Runs an agent's test questions (docs/API-NOTES.md "Test questions"): by hand (the agent's model
 * when its provider has a key), or by itself after the agent's knowledge changed, debounced, with
 * the model only when the owner turned that on. A test that passed in the run before and fails now
 * is a regression: the run records it, the owner gets an e-mail and `tests.regressed` goes out.
 */
export class TestRunner {
  /** agents whose tests are running now: one run per agent at a time */
  private readonly running = new Set<string>();

  constructor(private readonly deps: TestRunnerDeps) {
    deps.queue.register(TESTS_JOB, (job) => this.autoRun(job.subject_id));
    // in the transaction that changed the source: the pending run moves to the debounce's end; a
    // job is queued only when none is pending (the job itself waits longer when the time moved)
    deps.events.on('knowledge.changed', (e) => this.schedule(e.chatbot_id, e.account_id));
  }

  /** A run by hand: 404 for another account's agent, 409 while a run of the agent goes on. */
  async runNow(user: AuthUser, chatbotId: string): Promise<AgentTestRunRow> {
    const agent = this.deps.agents.get(user, chatbotId);
    if (this.running.has(agent.id)) throw conflict("A run of this agent's tests is going on; wait for its results");
    return this.run(agent, 'manual', true);
  }

  runs(user: AuthUser, chatbotId: string, limit: number): AgentTestRunRow[] {
    return this.deps.repo.runs(this.deps.agents.get(user, chatbotId).id, limit);
  }

  runDetail(user: AuthUser, chatbotId: string, runId: string): AgentTestRunRow {
    const run = this.deps.repo.findRun(runId);
    if (!run || !this.deps.agents.holding(user, run, chatbotId)) throw notFound('Test run');
    return run;
  }

  /** Tests of the account's agents that regressed in their agent's latest run (the admin's banner). */
  openRegressions(user: AuthUser): number {
    return this.deps.repo.openRegressions(user.id);
  }

  private schedule(chatbotId: string, accountId: string): void {
    const { repo, clock, queue } = this.deps;
    if (repo.count(chatbotId) === 0) return;
    const due = new Date(clock.now().getTime() + AUTO_RUN_DEBOUNCE_MS);
    const pending = repo.settings(chatbotId).auto_run_after;
    repo.saveSettings(chatbotId, { auto_run_after: due.toISOString() });
    if (!pending) queue.enqueue(TESTS_JOB, chatbotId, { runAfter: due, owner: accountId });
  }

  private async autoRun(chatbotId: string): Promise<void> {
    const { repo, clock, queue, agents } = this.deps;
    const settings = repo.settings(chatbotId);
    const agent = agents.findById(chatbotId);
    if (!settings.auto_run_after || !agent) return;
    const due = new Date(settings.auto_run_after);
    if (due > clock.now() || this.running.has(chatbotId)) {
      // changed again since the job was queued (or a run by hand goes on): wait for the new time
      const at = due > clock.now() ? due : new Date(clock.now().getTime() + AUTO_RUN_DEBOUNCE_MS);
      repo.transaction(() => {
        repo.saveSettings(chatbotId, { auto_run_after: at.toISOString() });
        queue.enqueue(TESTS_JOB, chatbotId, { runAfter: at, owner: agent.user_id });
      });
      return;
    }
    repo.saveSettings(chatbotId, { auto_run_after: null });
    if (repo.count(chatbotId) === 0) return;
    await this.run(agent, 'auto', settings.auto_run_with_model);
  }

  private async run(agent: ChatbotRow, trigger: 'manual' | 'auto', useModel: boolean): Promise<AgentTestRunRow> {
    const { repo, clock } = this.deps;
    this.running.add(agent.id);
    try {
      const startedAt = isoNow(clock);
      const tests = repo.list(agent.id);
      const withModel = useModel && this.deps.ask.providers(agent.provider) !== null;
      const results: StoredTestResult[] = [];
      for (const test of tests) results.push(await this.runOne(agent, test, withModel));
      const previous = repo.runs(agent.id, 1)[0];
      const passedBefore = new Set(previous?.results.filter((r) => r.passed).map((r) => r.test_id));
      const regressed = results.filter((r) => !r.passed && !r.error && passedBefore.has(r.test_id));
      return repo.transaction(() => {
        const run = repo.insertRun({
          id: newId(),
          chatbot_id: agent.id,
          trigger,
          with_model: withModel,
          passed: results.filter((r) => r.passed).length,
          failed: results.filter((r) => !r.passed).length,
          regressions: regressed.map((r) => r.test_id),
          results,
          started_at: startedAt,
          finished_at: isoNow(clock),
        });
        if (regressed.length > 0) this.tell(agent, run, regressed);
        return run;
      });
    } finally {
      this.running.delete(agent.id);
    }
  }

  private async runOne(agent: ChatbotRow, test: AgentTestRow, withModel: boolean): Promise<StoredTestResult> {
    const base = { test_id: test.id, question: test.question };
    let got;
    try {
      got = await answerTestQuestion(this.deps.ask, agent, test.question, withModel);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      this.deps.log.warn({ provider: err.provider, kind: err.kind, chatbotId: agent.id }, 'provider failed (test run)');
      return {
        ...base,
        passed: false,
        answer: '',
        sources: [],
        reason: `the model could not be asked: ${err.message}`,
        error: true,
      };
    }
    const source = test.expected_source_id ? this.deps.repo.source(test.expected_source_id) : undefined;
    const answerSources = got.sources.map((s) => s.source_id);
    const verdict = judge(
      { ...test, expected_source_exists: source?.chatbot_id === agent.id },
      // quoted without a model: the passages retrieval ranked count too (the model reads them all anyway)
      {
        answer: got.answer,
        sourceIds: got.model ? answerSources : [...answerSources, ...got.retrieved],
        found: got.found,
      },
    );
    return {
      ...base,
      ...verdict,
      answer: got.answer,
      sources: got.sources.map((s) => ({ source_id: s.source_id, name: s.name })),
    };
  }

  /** The owner's e-mail and the webhook event, in the run's transaction. */
  private tell(agent: ChatbotRow, run: AgentTestRunRow, regressed: StoredTestResult[]): void {
    const lines = regressed.map((r) => `- "${r.question}": ${r.reason}`);
    this.deps.notice(
      agent.user_id,
      `${regressed.length === 1 ? 'A test question' : `${regressed.length} test questions`} of ${agent.name} no longer pass${regressed.length === 1 ? 'es' : ''}`,
      [
        `These test questions of your agent ${agent.name} passed in the run before and fail now` +
          ` (${run.trigger === 'auto' ? 'a run after its knowledge changed' : 'a run by hand'}, ${run.started_at}):`,
        '',
        ...lines,
        '',
        `${run.passed} passed, ${run.failed} failed. The agent's Tests tab shows the answers.`,
      ].join('\n'),
    );
    this.deps.events.emit('tests.regressed', {
      account_id: agent.user_id,
      chatbot_id: agent.id,
      run: {
        id: run.id,
        trigger: run.trigger,
        passed: run.passed,
        failed: run.failed,
        started_at: run.started_at,
        regressions: regressed.map((r) => ({ test_id: r.test_id, question: r.question, reason: r.reason ?? '' })),
      },
    });
  }
}
