import { randomBytes } from 'node:crypto';
import { type Clock, isoNow } from '../../platform/clock.js';
import { badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { assertPublicHttpUrl } from '../../platform/net/safe-fetch.js';
import type { AgentsService } from '../agents/index.js';
import type { AuthUser } from '../auth/index.js';
import { encryptValue, type SettingsKey } from '../settings/index.js';
import type { ActionRunCounts, ActionsRepo } from './repo.js';
import type { ActionParameter, ActionRow, ActionRunRow } from './tables.js';
import { CONFIRM_WITHIN_MS } from './runner.js';
import { parseTemplate } from './url-template.js';

/** actions one agent may have */
export const MAX_ACTIONS = 20;

export type ActionType = ActionRow['type'];

/** What the owner sends to create an action (routes.ts checks the shapes; this file the rules between fields). */
export interface ActionInput {
  type: ActionType;
  name: string;
  description: string;
  url?: string | null;
  parameters?: ActionParameter[];
  response_fields?: string[];
  requires_verified?: boolean;
  calendar_url?: string | null;
  slot_minutes?: number;
  days_ahead?: number;
  enabled?: boolean;
}

/** A run as the transcript shows it (the fields the model was given stay out: the endpoint's data). */
export type ActionRunView = Omit<ActionRunRow, 'user_id' | 'result'>;

/** An action as the API shows it: never its signing secret. */
export type ActionView = Omit<ActionRow, 'signing_secret'>;

export interface ActionsOptions {
  allowPrivateUrls: boolean;
}

/**
 * The owner's side of actions (docs/ACTIONS.md): create, change, list and delete an agent's
 * actions, each checked as a whole: its URL template, its parameters, its calendar feed. The
 * runs themselves are runner.ts.
 */
export class ActionsService {
  constructor(
    private readonly deps: {
      repo: ActionsRepo;
      agents: AgentsService;
      key: SettingsKey;
      clock: Clock;
      options: ActionsOptions;
      /** the conversation is the agent's (the chat module's conversations) */
      holdsConversation: (chatbotId: string, conversationId: string) => boolean;
    },
  ) {}

  list(user: AuthUser, chatbotId: string): ActionView[] {
    const agent = this.deps.agents.get(user, chatbotId);
    return this.deps.repo.list(agent.id).map(view);
  }

  get(user: AuthUser, chatbotId: string, id: string): ActionView {
    return view(this.owned(user, chatbotId, id));
  }

  /** The new action, with its signing secret (shown only in this answer). */
  create(user: AuthUser, chatbotId: string, input: ActionInput): ActionView & { signing_secret: string } {
    const agent = this.deps.agents.get(user, chatbotId);
    const checked = this.check(input);
    const { repo, clock } = this.deps;
    const now = isoNow(clock);
    const id = newId();
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const row = repo.transaction(() => {
      if (repo.count(agent.id) >= MAX_ACTIONS) throw badRequest(`An agent has at most ${MAX_ACTIONS} actions`);
      if (repo.findByName(agent.id, checked.name))
        throw conflict(`name: the agent already has an action named ${checked.name}`);
      return repo.insert({
        ...checked,
        id,
        chatbot_id: agent.id,
        signing_secret: this.seal(id, secret),
        created_at: now,
        updated_at: now,
      });
    });
    return { ...view(row), signing_secret: secret };
  }

  /** Changes what is sent; the whole result is checked as a new action would be. `type` cannot change. */
  update(user: AuthUser, chatbotId: string, id: string, patch: Partial<ActionInput>): ActionView {
    const current = this.owned(user, chatbotId, id);
    if (patch.type !== undefined && patch.type !== current.type)
      throw badRequest('type: an action keeps its type; delete it and create another');
    const merged: ActionInput = { ...current, ...patch, type: current.type };
    const checked = this.check(merged);
    const { repo } = this.deps;
    const row = repo.transaction(() => {
      const named = repo.findByName(current.chatbot_id, checked.name);
      if (named && named.id !== id) throw conflict(`name: the agent already has an action named ${checked.name}`);
      return repo.update(id, { ...checked, updated_at: isoNow(this.deps.clock) });
    });
    return view(row);
  }

  remove(user: AuthUser, chatbotId: string, id: string): void {
    const action = this.owned(user, chatbotId, id);
    this.deps.repo.remove(action.id);
  }

  /**
   * The action runs of a conversation of the caller's agent, oldest first (the transcript shows
   * them); 404 for a conversation that is not this agent's, as for a missing one.
   */
  runsOf(user: AuthUser, chatbotId: string, conversationId: string): ActionRunView[] {
    const agent = this.deps.agents.get(user, chatbotId);
    if (!this.deps.holdsConversation(agent.id, conversationId)) throw notFound('Conversation');
    this.expireUnanswered();
    return this.deps.repo
      .runsOfConversation(conversationId)
      .filter((r) => r.chatbot_id === agent.id)
      .map(({ user_id: _account, result: _result, ...run }) => run);
  }

  /** Per action, the runs of the last `days` days (UTC, today included) by how they ended. */
  analytics(user: AuthUser, chatbotId: string, days: number): { from: string; to: string; actions: ActionRunCounts[] } {
    const agent = this.deps.agents.get(user, chatbotId);
    this.expireUnanswered();
    const now = this.deps.clock.now();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const from = new Date(today - (days - 1) * 86_400_000).toISOString();
    const to = new Date(today + 86_400_000).toISOString();
    return { from, to, actions: this.deps.repo.countsByAction(agent.id, from, to) };
  }

  /**
   * Cards older than CONFIRM_WITHIN_MS that nobody answered become expired before they are read
   * (nothing else sweeps them; a late click expires its own run in runner.ts).
   */
  private expireUnanswered(): void {
    const now = this.deps.clock.now();
    this.deps.repo.expireAwaiting(new Date(now.getTime() - CONFIRM_WITHIN_MS).toISOString(), now.toISOString());
  }

  private owned(user: AuthUser, chatbotId: string, id: string): ActionRow {
    const agent = this.deps.agents.get(user, chatbotId);
    const row = this.deps.repo.find(agent.id, id);
    if (!row) throw notFound('Action');
    return row;
  }

  /** The fields to store, or a 400 naming the first field that is wrong. */
  private check(input: ActionInput) {
    const parameters = (input.parameters ?? []).map((p) => ({
      name: p.name,
      description: p.description,
      required: p.required ?? true,
    }));
    const names = new Set<string>();
    for (const p of parameters) {
      if (names.has(p.name)) throw badRequest(`parameters: ${p.name} is listed twice`);
      names.add(p.name);
    }
    let url: string | null = null;
    let calendarUrl: string | null = null;
    let requiresVerified = input.requires_verified ?? false;
    if (input.type === 'booking') {
      if (!input.calendar_url)
        throw badRequest('calendar_url: a booking action needs the iCalendar feed of your calendar');
      calendarUrl = this.publicUrl('calendar_url', input.calendar_url);
      if (parameters.length) throw badRequest('parameters: a booking action takes none (the visitor picks a slot)');
    } else {
      if (!input.url) throw badRequest(`url: a ${input.type} action needs the URL of your endpoint`);
      const parsed = parseTemplate(input.url);
      if ('error' in parsed) throw badRequest(`url: ${parsed.error}`);
      for (const name of parsed.parameters)
        if (!names.has(name)) throw badRequest(`url: {${name}} is not one of the action's parameters`);
      if (input.type === 'lookup')
        for (const p of parameters)
          if (!parsed.parameters.includes(p.name))
            throw badRequest(`url: a look-up sends its parameters in the URL; {${p.name}} is not in it`);
      // a template that names the visitor works only for one the site vouched for
      if (parsed.userFields.length) requiresVerified = true;
      this.publicUrl('url', input.url.replace(/\{\{[^}]*\}\}|\{[^}]*\}/g, 'x'));
      url = input.url;
    }
    return {
      type: input.type,
      name: input.name,
      description: input.description,
      url,
      parameters,
      response_fields: input.response_fields ?? [],
      requires_verified: requiresVerified,
      calendar_url: calendarUrl,
      slot_minutes: input.slot_minutes ?? 30,
      days_ahead: input.days_ahead ?? 14,
      enabled: input.enabled ?? true,
    };
  }

  /** 400 for an address website sources may not fetch either (unless ALLOW_PRIVATE_URLS) */
  private publicUrl(field: string, raw: string): string {
    try {
      return assertPublicHttpUrl(raw, this.deps.options.allowPrivateUrls).href;
    } catch (err) {
      throw badRequest(`${field}: ${(err as Error).message}`);
    }
  }

  private seal(id: string, secret: string): string {
    return encryptValue(this.deps.key.readOrCreate(), `action:${id}`, secret);
  }
}

function view(row: ActionRow): ActionView {
  const { signing_secret: _secret, ...shown } = row;
  return shown;
}
