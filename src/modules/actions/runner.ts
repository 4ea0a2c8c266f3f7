import { isoNow } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import type { ChatbotRow } from '../agents/index.js';
import { decryptValue } from '../settings/index.js';
import { callEndpoint, pickFields } from './action-http.js';
import type {
  ActionCard,
  ActionRunnerDeps,
  BookingChoice,
  FinishOutcome,
  RunContext,
  StartOutcome,
} from './runner-types.js';
import type { ActionRow, ActionRunRow } from './tables.js';
import { renderTemplate, TemplateValueError } from './url-template.js';

/** a `do` or booking card the visitor leaves unanswered this long expires */
export const CONFIRM_WITHIN_MS = 30 * 60_000;
/** the longest value a parameter takes */
const MAX_VALUE_CHARS = 500;

/**
 * Runs an agent's actions (docs/ACTIONS.md): a look-up at once, a `do` and a booking only after the
 * visitor confirms its card. Every run is a row in action_runs (the transcript, analytics and the
 * monthly cap read them) and an `action.run` event when it ends. Nothing here throws at the
 * visitor: every failure is a sentence for the model and the transcript.
 */
export class ActionRunner {
  constructor(private readonly deps: ActionRunnerDeps) {}

  /** The agent's enabled actions, by name. */
  enabled(agent: ChatbotRow): ActionRow[] {
    return this.deps.repo.list(agent.id).filter((a) => a.enabled);
  }

  find(agent: ChatbotRow, actionId: string): ActionRow | undefined {
    const action = this.deps.repo.find(agent.id, actionId);
    return action?.enabled ? action : undefined;
  }

  /** Starts `action` with the inputs the model (or the visitor's form) gave. */
  async start(ctx: RunContext, action: ActionRow, given: Record<string, unknown>): Promise<StartOutcome> {
    const inputs = this.inputsOf(action, given);
    if (typeof inputs === 'string')
      return {
        kind: 'answer',
        text: inputs,
        visitorText: inputs.replace(/: ask the visitor for it first\./, '.'),
        run: null,
      };
    if (action.requires_verified && !ctx.visitor)
      return {
        kind: 'answer',
        text: `${action.name} is only for visitors signed in on the site; this visitor is not, so it cannot run.`,
        visitorText: 'Please sign in on the site first: this is only for signed-in visitors.',
        run: null,
      };
    const over = this.overCap(ctx.agent);
    if (over)
      return { kind: 'answer', text: over, visitorText: over, run: this.record(ctx, action, inputs, 'failed', over) };
    if (action.type === 'lookup') return this.lookup(ctx, action, inputs);
    const run = this.record(ctx, action, inputs, 'awaiting_confirmation', null);
    if (action.type === 'booking') {
      const booking = this.deps.booking;
      const offer = booking ? await booking.offer(ctx, action, run) : 'Booking is not available on this server.';
      if (typeof offer === 'string') {
        const failed = this.finish(ctx, run, { status: 'failed', outcome: offer });
        return { kind: 'answer', text: offer, visitorText: offer, run: failed };
      }
      return { kind: 'confirm', text: 'The visitor was shown free times to pick from and confirm.', card: offer, run };
    }
    let target: URL;
    try {
      target = renderTemplate(action.url ?? '', { params: inputs, user: ctx.visitor });
    } catch (err) {
      const why = err instanceof TemplateValueError ? err.message : 'the URL could not be made';
      const failed = this.finish(ctx, run, { status: 'failed', outcome: why });
      return { kind: 'answer', text: why, visitorText: `Sorry, that cannot be done: ${why}.`, run: failed };
    }
    const card: ActionCard = {
      run_id: run.id,
      action_name: action.name,
      type: 'do',
      description: action.description,
      inputs,
      sends: `POST ${target.origin}${target.pathname}`,
      slots: [],
      time_zone: null,
      needs_email: false,
    };
    return { kind: 'confirm', text: 'The visitor was asked to confirm; it has not run yet.', card, run };
  }

  /**
   * The visitor's Confirm: only for a run of this conversation still waiting (used once: two
   * clicks race in the repo's claim), not expired. Null: no such run here (404 for the route).
   */
  async confirm(ctx: RunContext, runId: string, choice: BookingChoice): Promise<FinishOutcome | null> {
    const run = this.deps.repo.findRun(ctx.agent.id, runId);
    if (!run || run.conversation_id !== ctx.conversationId) return null;
    const settled = this.settledOrExpired(ctx, run);
    if (settled) return settled;
    const action = run.action_id ? this.deps.repo.find(ctx.agent.id, run.action_id) : undefined;
    if (!action?.enabled) {
      const outcome = 'This action is no longer available.';
      return { run: this.claimOrCurrent(ctx, run, { status: 'failed', outcome }), message: outcome };
    }
    // a card does not count until it runs: the cap is checked again when it would
    const over = this.overCap(ctx.agent);
    if (over) return { run: this.claimOrCurrent(ctx, run, { status: 'failed', outcome: over }), message: over };
    if (action.type === 'booking') {
      if (!this.deps.booking) return { run, message: 'Booking is not available on this server.' };
      return this.deps.booking.book(ctx, action, run, choice);
    }
    // the URL as it was shown on the card; it can fail now only when the action changed since
    // (a {{user.*}} added, the visitor not verified): then nothing is sent
    let target: URL;
    try {
      if (action.requires_verified && !ctx.visitor) throw new TemplateValueError('user', 'is not verified');
      target = renderTemplate(action.url ?? '', { params: run.inputs, user: ctx.visitor });
    } catch (err) {
      const why = err instanceof TemplateValueError ? err.message : 'the URL could not be made';
      const outcome = `Not done: ${why}.`;
      return { run: this.claimOrCurrent(ctx, run, { status: 'failed', outcome }), message: outcome };
    }
    const now = isoNow(this.deps.clock);
    if (!this.deps.repo.claimAwaiting(run.id, { status: 'running', confirmed_at: now }))
      return this.settled(run.id, ctx.agent.id);
    const body = JSON.stringify({
      action: action.name,
      inputs: run.inputs,
      conversation_id: ctx.conversationId,
      user: ctx.visitor ?? null,
    });
    const started = this.deps.clock.now().getTime();
    const res = await callEndpoint({
      method: 'POST',
      url: target,
      body,
      actionName: action.name,
      secret: this.secret(action),
      allowPrivateUrls: this.deps.allowPrivateUrls,
      timeoutMs: this.deps.timeoutMs,
    });
    const duration = this.deps.clock.now().getTime() - started;
    if (!res.ok) {
      const outcome = `Not done: ${res.reason}.`;
      const done = this.finish(ctx, run, { status: 'failed', outcome, http_status: res.status, duration_ms: duration });
      return { run: done, message: `Sorry, that did not go through (${res.reason}). Nothing was done.` };
    }
    const fields = pickFields(res.json, action.response_fields);
    const shown = Object.entries(fields).map(([k, v]) => `${k}: ${String(v)}`);
    const outcome = shown.length ? `Done. ${shown.join('; ')}` : 'Done.';
    const done = this.finish(ctx, run, {
      status: 'succeeded',
      outcome,
      http_status: res.status,
      result: JSON.stringify(fields),
      duration_ms: duration,
    });
    return { run: done, message: outcome };
  }

  /** The visitor's Cancel: the run ends, nothing is sent. Null: no such run in this conversation. */
  cancel(ctx: RunContext, runId: string): FinishOutcome | null {
    const run = this.deps.repo.findRun(ctx.agent.id, runId);
    if (!run || run.conversation_id !== ctx.conversationId) return null;
    const settled = this.settledOrExpired(ctx, run);
    if (settled) return settled;
    const outcome = 'Cancelled by the visitor; nothing was sent.';
    const done = this.claimOrCurrent(ctx, run, { status: 'cancelled', outcome });
    return { run: done, message: done.status === 'cancelled' ? 'Cancelled. Nothing was sent.' : (done.outcome ?? '') };
  }

  /** Ends a run (the booking side calls it too): stored with its outcome and told as `action.run`. */
  finish(
    ctx: RunContext,
    run: ActionRunRow,
    end: Pick<ActionRunRow, 'status'> &
      Partial<Pick<ActionRunRow, 'outcome' | 'http_status' | 'result' | 'duration_ms'>>,
  ): ActionRunRow {
    const now = isoNow(this.deps.clock);
    return this.deps.repo.transaction(() => {
      const row = this.deps.repo.updateRun(run.id, { ...end, finished_at: now }) ?? run;
      this.emitRun(ctx, row);
      return row;
    });
  }

  /** Booking: claims a waiting run for its booking (in the caller's transaction); false when another click won. */
  claimForBooking(runId: string): boolean {
    return this.deps.repo.claimAwaiting(runId, { status: 'running', confirmed_at: isoNow(this.deps.clock) });
  }

  /** What a run that no longer waits says to the visitor. */
  settledOutcome(runId: string, chatbotId: string): FinishOutcome {
    return this.settled(runId, chatbotId);
  }

  /** The signing secret of an action, for the booking side's webhook-style calls. */
  secret(action: ActionRow): string {
    const key = this.deps.key.read();
    if (!key) throw new Error('no settings key');
    return decryptValue(key, `action:${action.id}`, action.signing_secret);
  }

  private async lookup(ctx: RunContext, action: ActionRow, inputs: Record<string, string>): Promise<StartOutcome> {
    let target: URL;
    try {
      target = renderTemplate(action.url ?? '', { params: inputs, user: ctx.visitor });
    } catch (err) {
      const why = err instanceof TemplateValueError ? err.message : 'the URL could not be made';
      const failed = this.record(ctx, action, inputs, 'failed', why);
      return { kind: 'answer', text: why, visitorText: `Sorry, that cannot be looked up: ${why}.`, run: failed };
    }
    const started = this.deps.clock.now().getTime();
    const res = await callEndpoint({
      method: 'GET',
      url: target,
      actionName: action.name,
      secret: this.secret(action),
      allowPrivateUrls: this.deps.allowPrivateUrls,
      timeoutMs: this.deps.timeoutMs,
      signal: ctx.signal,
    });
    const duration = this.deps.clock.now().getTime() - started;
    if (!res.ok) {
      const text = `The look-up failed: ${res.reason}. Tell the visitor it could not be checked now.`;
      const run = this.record(ctx, action, inputs, 'failed', `Failed: ${res.reason}.`, {
        http_status: res.status,
        duration_ms: duration,
      });
      return { kind: 'answer', text, visitorText: `Sorry, that could not be checked now (${res.reason}).`, run };
    }
    const fields = pickFields(res.json, action.response_fields);
    const run = this.record(ctx, action, inputs, 'succeeded', 'Looked up.', {
      http_status: res.status,
      result: JSON.stringify(fields),
      duration_ms: duration,
    });
    const shown = Object.entries(fields).map(([k, v]) => `${k}: ${String(v)}`);
    const visitorText = shown.length ? shown.join('\n') : 'Done: nothing to show.';
    return { kind: 'answer', text: JSON.stringify(fields), visitorText, run };
  }

  /** The declared parameters' values as strings, or what is wrong in words (nothing is run). */
  private inputsOf(action: ActionRow, given: Record<string, unknown>): Record<string, string> | string {
    const inputs: Record<string, string> = {};
    for (const p of action.parameters) {
      const raw = given[p.name];
      const value = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
      if (!value) {
        if (p.required !== false) return `Missing ${p.name} (${p.description}): ask the visitor for it first.`;
        continue;
      }
      if (value.length > MAX_VALUE_CHARS) return `${p.name} is too long (at most ${MAX_VALUE_CHARS} characters).`;
      inputs[p.name] = value;
    }
    // parameters the model made up are not sent anywhere
    return inputs;
  }

  private overCap(agent: ChatbotRow): string | null {
    const cap = this.deps.monthlyRuns(agent.user_id);
    const now = this.deps.clock.now();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    if (this.deps.repo.countedRunsSince(agent.user_id, monthStart) < cap) return null;
    return "This action is not available right now (the account's monthly allowance of actions is used up).";
  }

  private record(
    ctx: RunContext,
    action: ActionRow,
    inputs: Record<string, string>,
    status: ActionRunRow['status'],
    outcome: string | null,
    extra: Partial<Pick<ActionRunRow, 'http_status' | 'result' | 'duration_ms'>> = {},
  ): ActionRunRow {
    const now = isoNow(this.deps.clock);
    return this.deps.repo.transaction(() => {
      const run = this.deps.repo.insertRun({
        id: newId(),
        action_id: action.id,
        action_name: action.name,
        action_type: action.type,
        chatbot_id: ctx.agent.id,
        conversation_id: ctx.conversationId,
        user_id: ctx.agent.user_id,
        inputs,
        status,
        outcome,
        created_at: now,
        finished_at: status === 'awaiting_confirmation' ? null : now,
        ...extra,
      });
      if (status !== 'awaiting_confirmation') this.emitRun(ctx, run);
      return run;
    });
  }

  /** A run no longer waiting, told as such; an expired one is marked so first. */
  private settledOrExpired(ctx: RunContext, run: ActionRunRow): FinishOutcome | null {
    if (run.status === 'awaiting_confirmation') {
      const age = this.deps.clock.now().getTime() - Date.parse(run.created_at);
      if (age <= CONFIRM_WITHIN_MS) return null;
      const outcome = 'The visitor did not confirm in time.';
      this.deps.repo.claimAwaiting(run.id, { status: 'expired', outcome, finished_at: isoNow(this.deps.clock) });
      return {
        run: this.deps.repo.findRun(ctx.agent.id, run.id) ?? run,
        message: 'This request expired; please ask again.',
      };
    }
    return this.settled(run.id, ctx.agent.id);
  }

  private settled(runId: string, chatbotId: string): FinishOutcome {
    const run = this.deps.repo.findRun(chatbotId, runId)!;
    const said: Record<ActionRunRow['status'], string> = {
      awaiting_confirmation: 'This is waiting for your confirmation.',
      running: 'This is being handled already.',
      succeeded: 'This was done already.',
      failed: 'This did not go through; please ask again.',
      cancelled: 'This was cancelled.',
      expired: 'This request expired; please ask again.',
    };
    return { run, message: said[run.status] };
  }

  /** Claims a waiting run for an ending with no call (cancel, failure); when another click won, the run as it is. */
  private claimOrCurrent(
    ctx: RunContext,
    run: ActionRunRow,
    end: { status: 'failed' | 'cancelled'; outcome: string },
  ): ActionRunRow {
    const now = isoNow(this.deps.clock);
    return this.deps.repo.transaction(() => {
      if (!this.deps.repo.claimAwaiting(run.id, { ...end, finished_at: now }))
        return this.deps.repo.findRun(ctx.agent.id, run.id) ?? run;
      const row = this.deps.repo.findRun(ctx.agent.id, run.id) ?? run;
      this.emitRun(ctx, row);
      return row;
    });
  }

  private emitRun(ctx: RunContext, run: ActionRunRow): void {
    if (run.status !== 'succeeded' && run.status !== 'failed' && run.status !== 'cancelled') return;
    this.deps.events.emit('action.run', {
      account_id: ctx.agent.user_id,
      chatbot_id: ctx.agent.id,
      conversation_id: ctx.conversationId,
      run: {
        id: run.id,
        action_id: run.action_id,
        action_name: run.action_name,
        type: run.action_type,
        status: run.status,
        inputs: run.inputs,
        outcome: run.outcome,
        at: run.finished_at ?? run.created_at,
      },
    });
  }
}
