import { type Clock, isoNow } from '../../platform/clock.js';
import { LLM_PROVIDERS } from '../../providers/llm/catalog.js';
import { badRequest, forbidden, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { AuthUser } from '../auth/index.js';
import type { PlanHolder, PlanService } from '../limits/index.js';
import type { AgentsRepo, ChatbotPatch } from './repo.js';
import { type CreateAgentInput, publicAgentSchema, type UpdateAgentInput } from './schemas.js';
import type { ChatbotRow } from './tables.js';
import { DEFAULT_PRIMARY, followingColors } from './colors.js';
import { type PublicAgentInfo, type PublicEntry, publicView } from './public-info.js';
import { type HandoffAvailability, handoffAvailability } from './office-hours.js';

export type { PublicAgentInfo } from './public-info.js';

export const DEFAULT_INSTRUCTIONS =
  'You are a friendly and helpful customer support assistant for this business. Answer questions ' +
  'clearly and concisely using the information you have been given. If you do not know the answer, ' +
  'say so honestly and offer to help the visitor get in touch with the team. Never make up facts, ' +
  'prices or policies.';
export const DEFAULT_WELCOME = "Hi! I'm your AI assistant. How can I help you today?";

/**
 * The default model is gpt-4o-mini for the default provider, openai (docs/API.md "Objects"). An agent created for
 * another provider without a model gets that provider's small everyday model instead (its catalog entry), since
 * gpt-4o-mini would fail there.
 */
export const DEFAULT_MODEL = Object.fromEntries(LLM_PROVIDERS.map((p) => [p.name, p.defaultModel])) as Record<
  ChatbotRow['provider'],
  string
>;

export type AgentView = ChatbotRow & { system_message: string };

export function toAgentView(row: ChatbotRow): AgentView {
  return { ...row, system_message: row.instructions };
}

export interface AgentsServiceDeps {
  repo: AgentsRepo;
  plans: PlanService;
  clock: Clock;
  /**
   * The account by id (the owner lookup every module shares): its status takes a suspended or
   * banned account's agents offline to visitors, its plan decides custom branding. Without it
   * (tests of retrieval alone) owners count as active on the default plan.
   */
  accountOf?: (userId: string) => PlanHolder & { id: string; status: string };
  /** whether anyone of the account (owner or teammate) is online; without it: always */
  anyoneOnline?: (accountId: string) => boolean;
}

export class AgentsService {
  private readonly repo: AgentsRepo;
  private readonly plans: PlanService;
  private readonly clock: Clock;
  private readonly accountOf?: (userId: string) => PlanHolder & { id: string; status: string };
  private readonly anyoneOnline: (accountId: string) => boolean;

  constructor({ repo, plans, clock, accountOf, anyoneOnline }: AgentsServiceDeps) {
    this.repo = repo;
    this.plans = plans;
    this.clock = clock;
    this.accountOf = accountOf;
    this.anyoneOnline = anyoneOnline ?? (() => true);
  }

  /**
   * Whether a visitor asking for a person can get one now: within the agent's office hours and
   * with someone of the account online; else when the office hours open next (docs/API-NOTES.md
   * "Office hours and availability").
   */
  handoffAvailability(agent: Pick<ChatbotRow, 'user_id' | 'office_hours'>): HandoffAvailability {
    const t = this.clock.now().getTime();
    const online = () => this.anyoneOnline(agent.user_id);
    try {
      return handoffAvailability(agent.office_hours, online, t);
    } catch {
      // a stored zone this Node no longer knows (Intl throws): as if there were no office hours,
      // rather than a widget that cannot load
      return { available: online(), next_opening: null };
    }
  }

  /** The agent's owner: what quotas, plans and the visitor-facing rate limit are counted against. */
  ownerOf(agent: Pick<ChatbotRow, 'user_id'>): PlanHolder & { id: string; status: string } {
    // an unknown plan id reads as the default plan (PlanService.planOf)
    return (
      this.accountOf?.(agent.user_id) ?? { id: agent.user_id, status: 'active', plan_id: '', plan_expires_at: null }
    );
  }

  /**
   * The agent a visitor may talk to or leave a lead with: unknown 404, not public 403, switched
   * off or its owner's account suspended or banned 400 (the widget shows it offline). The one
   * rule for every visitor route that acts on an agent.
   */
  reachable(id: string): ChatbotRow {
    const agent = this.repo.findById(id);
    const visible = publicOnly(agent);
    if (this.statusForVisitors(visible) !== 'active') throw badRequest('This chatbot is inactive');
    return visible;
  }

  /**
   * The agent a messaging channel's visitor talks to (modules/channels): its owner connected the
   * channel, so it answers there whether or not its widget is public; unknown 404, switched off
   * or its owner's account suspended or banned 400.
   */
  answering(id: string): ChatbotRow {
    const agent = this.repo.findById(id);
    if (!agent) throw notFound('Chatbot');
    if (this.statusForVisitors(agent) !== 'active') throw badRequest('This chatbot is inactive');
    return agent;
  }

  /** the agent's status as visitors see it: inactive too while its owner's account is not active */
  private statusForVisitors(agent: ChatbotRow): 'active' | 'inactive' {
    return agent.status === 'active' && this.ownerOf(agent).status === 'active' ? 'active' : 'inactive';
  }

  list(user: AuthUser): ChatbotRow[] {
    return this.repo.listByUser(user.id);
  }

  /**
   * The caller's agent that holds `row` (a conversation, lead, source or gap), or undefined when
   * there is no row, it belongs to another agent than `chatbotId` (when the path names one), or the
   * agent is another account's. The one ownership rule for an agent's rows: callers answer 404 for
   * all of these alike, so another account's ids read as missing.
   */
  holding(user: AuthUser, row: { chatbot_id: string } | undefined, chatbotId?: string): ChatbotRow | undefined {
    if (!row || (chatbotId !== undefined && row.chatbot_id !== chatbotId)) return undefined;
    return this.repo.findOwned(row.chatbot_id, user.id);
  }

  /** The caller's agent, or 404 whether it is missing or another account's. */
  get(user: AuthUser, id: string): ChatbotRow {
    const row = this.repo.findOwned(id, user.id);
    if (!row) throw notFound('Chatbot');
    return row;
  }

  /**
   * Takes every field `update` takes (docs/API-NOTES.md "Agents"), under the same rules; what is not sent gets
   * the baseline's default (docs/API.md "Objects"). Custom branding text needs a plan with `custom_branding` (null, the default, does not).
   */
  create(user: AuthUser, input: CreateAgentInput): ChatbotRow {
    this.plans.assertNotExpired(user);
    const now = isoNow(this.clock);
    const { name, ...rest } = input;
    const fields = patchOf(rest);
    const provider = fields.provider ?? 'openai';
    if (fields.powered_by_text != null) this.plans.assertCustomBranding(user);
    assertAlertAddress(fields.email_alerts_enabled ?? false, fields.email_alert_address ?? null);
    return this.repo.transaction(() => {
      this.plans.assertCanAddAgent(user, this.repo.countByUser(user.id));
      return this.repo.insert({
        description: null,
        model: DEFAULT_MODEL[provider],
        temperature: 0.7,
        max_tokens: 500,
        instructions: DEFAULT_INSTRUCTIONS,
        status: 'active',
        public_access: true,
        primary_color: DEFAULT_PRIMARY,
        welcome_message: DEFAULT_WELCOME,
        widget_position: 'bottom-right',
        widget_theme: 'auto',
        widget_size: 'medium',
        lead_capture_enabled: true,
        email_alerts_enabled: false,
        email_alert_address: null,
        rate_limit_enabled: false,
        messages_per_hour: 60,
        logo_url: null,
        avatar_url: null,
        font_family: 'system-ui, sans-serif',
        font_size: 14,
        bubble_style: 'rounded',
        auto_expand: false,
        powered_by_text: null,
        allowed_domains: [],
        daily_message_limit: null,
        no_answer_message: null,
        show_sources: true,
        // a new agent asks for contact details after its first answer, not before the visitor's
        // first word (issue 22.6); agents from before keep asking first (migration default)
        lead_form_timing: 'after_messages',
        lead_form_after_messages: 1,
        lead_consent_text: null,
        privacy_policy_url: null,
        language: 'auto',
        widget_texts: {},
        unavailable_message: null,
        starter_questions: [],
        greeting_message: null,
        greeting_delay_s: 5,
        auto_resolve_after_h: 24,
        escalation_keywords: [],
        synonyms: [],
        handoff_wait_s: 120,
        office_hours: null,
        ...fields,
        ...followingColors(fields.primary_color ?? DEFAULT_PRIMARY, input),
        id: newId(),
        user_id: user.id,
        name,
        provider,
        messages_count: 0,
        conversations_count: 0,
        created_at: now,
        updated_at: now,
      });
    });
  }

  /**
   * Changes only the fields sent (docs/API.md "Objects"); `instructions` wins over its alias `system_message`.
   * A field the plan does not allow (custom branding) is refused only when it would change: sent
   * back with the value it has, or as null (the default), it passes, so a client may send its
   * whole settings form on every save.
   */
  update(user: AuthUser, id: string, input: UpdateAgentInput): ChatbotRow {
    const current = this.get(user, id);
    const patch = patchOf(input);
    if (patch.powered_by_text != null && patch.powered_by_text !== current.powered_by_text)
      this.plans.assertCustomBranding(user);

    const alertsOn = patch.email_alerts_enabled ?? current.email_alerts_enabled;
    const alertAddress =
      patch.email_alert_address !== undefined ? patch.email_alert_address : current.email_alert_address;
    assertAlertAddress(alertsOn, alertAddress);
    Object.assign(patch, followingColors(patch.primary_color ?? current.primary_color, input, current));
    patch.updated_at = isoNow(this.clock);
    return this.repo.update(current.id, patch);
  }

  delete(user: AuthUser, id: string): void {
    const current = this.get(user, id);
    this.repo.delete(current.id);
  }

  /** Any agent by id, for the public routes (which then apply their own access rules). */
  findById(id: string): ChatbotRow | undefined {
    return this.repo.findById(id);
  }

  /**
   * Public agent info: 404 unknown, 403 when public access is off. `powered_by_text` shows only
   * while the owner's plan includes custom branding (null means default branding).
   */
  publicInfo(id: string): PublicAgentInfo {
    return this.publicEntry(id).info;
  }

  /**
   * publicInfo as the JSON the public route sends, checked against its schema, with `handoff`
   * (handoffAvailability) added. Every widget load
   * reads it, so it is made once per version of the agent and kept: checking and serializing per
   * request was ~6 us of a ~85 us request.
   */
  publicInfoJson(id: string): string {
    const entry = this.publicEntry(id);
    // the part that changes with the clock and the team's availability is added per request
    entry.json ??= JSON.stringify(publicAgentSchema.omit({ handoff: true }).parse(entry.info));
    const handoff = JSON.stringify(this.handoffAvailability(this.repo.findById(id)!));
    return `${entry.json.slice(0, -1)},"handoff":${handoff}}`;
  }

  private publicEntry(id: string): PublicEntry {
    // a second look-up in the request after the visitor CORS hook's is a hit in the repository's row cache
    const row = publicOnly(this.repo.findById(id));
    const branded = this.plans.planOf(this.ownerOf(row)).custom_branding;
    const status = this.statusForVisitors(row);
    // kept while the row is the same (the row cache hands out one object per version of a row):
    // a changed agent, plan or owner status reads as another row or key, never as a stale entry
    let views = this.publicViews.get(row);
    if (!views) this.publicViews.set(row, (views = {}));
    const key = `${branded ? 'branded' : 'plain'}-${status}` as const;
    return (views[key] ??= { info: Object.freeze(publicView(row, branded, status)) });
  }

  /** per agent row: its public info (frozen: callers share it) and JSON, with and without custom branding */
  private readonly publicViews = new WeakMap<
    ChatbotRow,
    Partial<Record<`${'branded' | 'plain'}-${'active' | 'inactive'}`, PublicEntry>>
  >();

  /** Counter upkeep for chat; call inside the transaction that stores the messages. */
  recordActivity(id: string, messages: number, conversations: number): void {
    this.repo.addCounts(id, messages, conversations);
  }

  toggle(user: AuthUser, id: string): ChatbotRow {
    const current = this.get(user, id);
    return this.repo.update(current.id, {
      status: current.status === 'active' ? 'inactive' : 'active',
      updated_at: isoNow(this.clock),
    });
  }
}

/** The part of the visitor rule publicInfo shares with `reachable`: unknown 404, not public 403. */
function publicOnly(agent: ChatbotRow | undefined): ChatbotRow {
  if (!agent) throw notFound('Chatbot');
  if (!agent.public_access) throw forbidden('This chatbot is not publicly accessible');
  return agent;
}

/** The fields sent, as columns: unsent ones left out, `system_message` as `instructions` unless that is sent too. */
function patchOf(input: UpdateAgentInput): ChatbotPatch {
  // the secondary and accent colours are followingColors' (they may follow the primary)
  const { system_message, secondary_color, accent_color, secondary_follows_primary, accent_follows_primary, ...rest } =
    input;
  const patch: ChatbotPatch = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (patch.instructions === undefined && system_message !== undefined) patch.instructions = system_message;
  return patch;
}

function assertAlertAddress(alertsOn: boolean, address: string | null): void {
  if (alertsOn && !address) throw badRequest('email_alert_address: required when email_alerts_enabled is true');
}
