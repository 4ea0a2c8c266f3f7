import { type Clock, isoNow } from '../../platform/clock.js';
import { ApiError, badRequest, forbidden, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { AgentsService, ChatbotRow } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import type { PlanService } from '../limits/index.js';
import { parseTestsCsv, splitPhrases } from './csv.js';
import { phrasesOf } from './judge.js';
import type { AgentTestsRepo } from './repo.js';
import { FIELD_MAX } from '../field-limits.js';
import type { AgentTestRow, AgentTestSettingsRow } from './tables.js';

export const MAX_QUESTION_CHARS = FIELD_MAX.test.question;
export const MAX_PHRASES = 20;
export const MAX_PHRASE_CHARS = FIELD_MAX.test.phrase;
/** the CSV text an import takes (about 10,000 rows of 100 characters) */
export const MAX_CSV_CHARS = 1_000_000;

export interface TestInput {
  question: string;
  expected_phrases: string[];
  expected_source_id?: string | null;
}

/** Where a test is made from instead of written out: an answer, an answer gap or a Q&A source. */
export type TestOrigin = { message_id: string } | { gap_id: string } | { source_id: string };

export interface AgentTestsDeps {
  repo: AgentTestsRepo;
  agents: AgentsService;
  plans: PlanService;
  clock: Clock;
  /** the visitor's message before an answer (the chat module's messages) */
  questionBefore: (conversationId: string, answerId: string) => string | undefined;
}

/**
 * An agent's test questions (docs/API-NOTES.md "Test questions"): written by hand, made from an
 * answer, an answered gap or a Q&A source, or imported from CSV; at most the plan's
 * `max_tests_per_agent`. Another account's agent or test reads as missing (404).
 */
export class AgentTestsService {
  constructor(private readonly deps: AgentTestsDeps) {}

  list(user: AuthUser, chatbotId: string): AgentTestRow[] {
    return this.deps.repo.list(this.deps.agents.get(user, chatbotId).id);
  }

  create(user: AuthUser, chatbotId: string, input: TestInput): AgentTestRow {
    const agent = this.deps.agents.get(user, chatbotId);
    const fields = this.checked(agent, input);
    return this.deps.repo.transaction(() => {
      this.assertRoom(agent, 1);
      return this.insert(agent, fields, 'manual');
    });
  }

  /** A test made from an answer (its visitor question), an answered gap or a Q&A source. */
  createFrom(user: AuthUser, chatbotId: string, from: TestOrigin): AgentTestRow {
    const agent = this.deps.agents.get(user, chatbotId);
    const { repo } = this.deps;
    let made: { fields: TestInput; origin: AgentTestRow['origin']; conversationId?: string };
    if ('message_id' in from) {
      const message = repo.message(from.message_id);
      if (!message || message.chatbot_id !== agent.id) throw notFound('Message');
      if (message.role !== 'assistant' || message.from_person)
        throw badRequest("from.message_id: name one of the agent's answers (a visitor's thumbs down, say)");
      const question = this.deps.questionBefore(message.conversation_id, message.id)?.trim();
      if (!question) throw badRequest('from.message_id: no visitor question comes before this answer');
      made = {
        fields: { question, expected_phrases: [] },
        origin: 'thumbs_down',
        conversationId: message.conversation_id,
      };
    } else if ('gap_id' in from) {
      const gap = repo.gap(from.gap_id);
      if (!gap || gap.chatbot_id !== agent.id) throw notFound('Answer gap');
      const source = gap.source_id ? repo.source(gap.source_id) : undefined;
      if (gap.status !== 'answered' || !source)
        throw badRequest('from.gap_id: the gap has no answer yet: answer it first (a Q&A source)');
      made = { fields: this.fromQa(source, gap.question), origin: 'gap' };
    } else {
      const source = repo.source(from.source_id);
      if (!source || source.chatbot_id !== agent.id) throw notFound('Source');
      if (source.type !== 'qa') throw badRequest('from.source_id: name a Q&A source (its question and answer)');
      made = { fields: this.fromQa(source), origin: 'qa' };
    }
    const fields = this.checked(agent, made.fields);
    return repo.transaction(() => {
      this.assertRoom(agent, 1);
      return this.insert(agent, fields, made.origin, made.conversationId);
    });
  }

  private fromQa(source: { id: string; qa_question: string | null; qa_answer: string | null }, question?: string) {
    return {
      question: (question ?? source.qa_question ?? '').slice(0, MAX_QUESTION_CHARS),
      expected_phrases: phrasesOf(source.qa_answer ?? '').map((p) => p.slice(0, MAX_PHRASE_CHARS)),
      expected_source_id: source.id,
    };
  }

  update(user: AuthUser, chatbotId: string, testId: string, patch: Partial<TestInput>): AgentTestRow {
    const { agent, test } = this.owned(user, chatbotId, testId);
    const fields = this.checked(agent, {
      question: patch.question ?? test.question,
      expected_phrases: patch.expected_phrases ?? test.expected_phrases,
      expected_source_id: patch.expected_source_id === undefined ? test.expected_source_id : patch.expected_source_id,
    });
    // a source deleted since keeps its name on a test that still names it
    const kept = fields.expected_source_id === test.expected_source_id && !fields.expected_source_name;
    return this.deps.repo.update(test.id, {
      ...fields,
      expected_source_name: kept ? test.expected_source_name : fields.expected_source_name,
      updated_at: isoNow(this.deps.clock),
    });
  }

  remove(user: AuthUser, chatbotId: string, testId: string): void {
    this.deps.repo.delete(this.owned(user, chatbotId, testId).test.id);
  }

  /**
   * Test questions from CSV text: the good rows are stored together (one transaction), the bad
   * ones listed with their line and why. 403 (nothing stored) when the good rows pass the plan's cap.
   */
  importCsv(
    user: AuthUser,
    chatbotId: string,
    csv: string,
  ): { imported: AgentTestRow[]; errors: Array<{ line: number; detail: string }> } {
    const agent = this.deps.agents.get(user, chatbotId);
    let rows;
    try {
      rows = parseTestsCsv(csv);
    } catch (err) {
      throw badRequest(`csv: ${(err as Error).message}`);
    }
    const named = new Map<string, string[]>();
    const wanted = [...new Set(rows.map((r) => (r.fields.expected_source ?? '').toLowerCase()).filter(Boolean))];
    for (const s of this.deps.repo.sourcesNamed(agent.id, wanted))
      named.set(s.name.toLowerCase(), [...(named.get(s.name.toLowerCase()) ?? []), s.id]);
    const good: ReturnType<AgentTestsService['checked']>[] = [];
    const errors: Array<{ line: number; detail: string }> = [];
    for (const { line, fields } of rows) {
      try {
        const source = fields.expected_source ?? '';
        let sourceId: string | null = null;
        if (source) {
          const byName = named.get(source.toLowerCase()) ?? [];
          if (byName.length > 1)
            throw badRequest(`expected_source: ${byName.length} sources are named '${source}'; give its id`);
          sourceId = byName[0] ?? source;
        }
        good.push(
          this.checked(agent, {
            question: fields.question ?? '',
            expected_phrases: splitPhrases(fields.expected_phrases ?? ''),
            expected_source_id: sourceId,
          }),
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        errors.push({ line, detail: err.message });
      }
    }
    const imported = this.deps.repo.transaction(() => {
      this.assertRoom(agent, good.length);
      return good.map((fields) => this.insert(agent, fields, 'csv'));
    });
    return { imported, errors };
  }

  settings(user: AuthUser, chatbotId: string): AgentTestSettingsRow {
    return this.deps.repo.settings(this.deps.agents.get(user, chatbotId).id);
  }

  saveSettings(user: AuthUser, chatbotId: string, input: { auto_run_with_model: boolean }): AgentTestSettingsRow {
    return this.deps.repo.saveSettings(this.deps.agents.get(user, chatbotId).id, input);
  }

  /** One of the caller's agent's tests; any other (missing, another agent's or account's) is 404 alike. */
  owned(user: AuthUser, chatbotId: string, testId: string): { agent: ChatbotRow; test: AgentTestRow } {
    const test = this.deps.repo.find(testId);
    const agent = this.deps.agents.holding(user, test, chatbotId);
    if (!test || !agent) throw notFound('Test');
    return { agent, test };
  }

  /** The input checked and trimmed (400 naming the field), its source's name looked up. */
  private checked(agent: ChatbotRow, input: TestInput) {
    const question = input.question.trim();
    if (!question) throw badRequest('question: must not be empty');
    if (question.length > MAX_QUESTION_CHARS) throw badRequest(`question: at most ${MAX_QUESTION_CHARS} characters`);
    const phrases = [...new Set(input.expected_phrases.map((p) => p.trim()).filter(Boolean))];
    if (phrases.length > MAX_PHRASES) throw badRequest(`expected_phrases: at most ${MAX_PHRASES} phrases`);
    const long = phrases.find((p) => p.length > MAX_PHRASE_CHARS);
    if (long) throw badRequest(`expected_phrases: '${long.slice(0, 40)}…' is over ${MAX_PHRASE_CHARS} characters`);
    let name: string | null = null;
    if (input.expected_source_id) {
      const source = this.deps.repo.source(input.expected_source_id);
      if (!source || source.chatbot_id !== agent.id)
        throw badRequest(`expected_source_id: '${input.expected_source_id}' is no source of this agent`);
      name = source.name;
    }
    return {
      question,
      expected_phrases: phrases,
      expected_source_id: input.expected_source_id || null,
      expected_source_name: name,
    };
  }

  /** 403 with the limit detail when `adding` more tests pass the plan's max_tests_per_agent. */
  private assertRoom(agent: ChatbotRow, adding: number): void {
    const owner = this.deps.agents.ownerOf(agent);
    const max = this.deps.plans.planOf(owner).max_tests_per_agent;
    const current = this.deps.repo.count(agent.id);
    if (current + adding > max)
      throw forbidden({
        message: `Test limit reached: your ${owner.plan_id || 'current'} plan allows ${max} test questions per agent`,
        current,
        max,
        upgrade_required: true,
      });
  }

  private insert(
    agent: ChatbotRow,
    fields: ReturnType<AgentTestsService['checked']>,
    origin: AgentTestRow['origin'],
    conversationId?: string,
  ) {
    const now = isoNow(this.deps.clock);
    return this.deps.repo.insert({
      id: newId(),
      chatbot_id: agent.id,
      ...fields,
      origin,
      conversation_id: conversationId ?? null,
      created_at: now,
      updated_at: now,
    });
  }
}
