import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/index.js';
import type { AppEvents } from '../../platform/events.js';
import type { ActionRunner } from '../actions/index.js';
import type { AgentsService, IdentityService } from '../agents/index.js';
import type { KnowledgeService } from '../knowledge/index.js';
import type { MessageQuota, PlanService } from '../limits/index.js';
import { ActionTurns } from './action-turns.js';
import { DraftReplies } from './draft-reply.js';
import { type HandoffNotices, HandoffService } from './handoff.js';
import type { AuthRepo } from '../auth/index.js';
import { InboxService } from './inbox.js';
import { InboxRepo } from './inbox-repo.js';
import { People } from './people.js';
import { channelActivityOf } from './channel-activity.js';
import { ChatRepo } from './repo.js';
import { ChatService, type ProviderLookup } from './service.js';
import { VisitorHistory } from './visitor-history.js';
import { VisitorHistoryRepo } from './visitor-history-repo.js';

/** How often open conversations are checked for their agent's idle time (auto_resolve_after_h). */
const IDLE_RESOLVE_EVERY_MS = 5 * 60_000;

export interface ChatDeps {
  db: Db;
  clock: Clock;
  agents: AgentsService;
  /** verified visitors: the public chat's `user` hash and the visitor history's token */
  identity: IdentityService;
  knowledge: KnowledgeService;
  plans: PlanService;
  quota: MessageQuota;
  providers: ProviderLookup;
  events: AppEvents;
  /** the auth module's users repository (shared: one cache of users), for the team's names */
  users: AuthRepo;
  /** e-mails, browser and push notifications when a visitor asks for a person */
  notices: HandoffNotices;
  report: (what: string) => (err: unknown) => void;
  /** the agents' actions, offered to the model as tools */
  actions: ActionRunner;
}

/** The visitor's questions before an answer, read from the chat module's messages (answer gaps use them). */
export function visitorQuestions(db: Db) {
  const repo = new ChatRepo(db);
  return {
    before: (conversationId: string, answerId: string) => repo.visitorMessageBefore(conversationId, answerId),
    latest: (conversationId: string) => repo.latestVisitorMessages(conversationId),
  };
}

/** Whether a conversation is an agent's, read from the chat module's conversations (an action's runs are shown only then). */
export function conversationHeld(db: Db) {
  const repo = new ChatRepo(db);
  return (chatbotId: string, conversationId: string) => repo.findConversation(conversationId)?.chatbot_id === chatbotId;
}

/** Conversations and messages per channel of an agent since a time, read from the chat module's tables. */
export function channelActivity(db: Db) {
  return (chatbotId: string, sinceIso: string) => channelActivityOf(db, chatbotId, sinceIso);
}

/** Chat turns and conversations, the live handoff with its drafted replies, and the timer that resolves idle conversations. */
export function createChat(app: FastifyInstance, deps: ChatDeps) {
  const { db, clock, agents, events } = deps;
  // one repo for the module's services: its statements are prepared once
  const repo = new ChatRepo(db);
  const chat = new ChatService({
    repo,
    agents,
    knowledge: deps.knowledge,
    plans: deps.plans,
    quota: deps.quota,
    providers: deps.providers,
    actions: deps.actions,
    clock,
    log: app.log,
    events,
    identity: deps.identity,
  });
  // a verified visitor's past conversations, read with a token the owner's site minted
  const history = new VisitorHistory(new VisitorHistoryRepo(db), deps.identity);
  const people = new People(deps.users);
  // live handoff: the owner takes a conversation over; the visitor's and the owner's streams
  const handoff = new HandoffService({
    people,
    repo,
    agents,
    clock,
    events,
    log: app.log,
    notices: deps.notices,
  });
  // a suggested reply for a teammate who took a conversation over (nothing stored)
  const drafts = new DraftReplies({
    repo,
    agents,
    knowledge: deps.knowledge,
    providers: deps.providers,
    plans: deps.plans,
    log: app.log,
  });
  // conversations idle past their agent's auto_resolve_after_h become resolved (listing does it too)
  const idleResolver = setInterval(() => {
    try {
      chat.resolveIdle();
    } catch (err) {
      deps.report('resolving idle conversations')(err);
    }
  }, IDLE_RESOLVE_EVERY_MS);
  idleResolver.unref();
  app.addHook('onClose', async () => clearInterval(idleResolver));
  // the account's inbox: every agent's conversations, assignment, internal notes
  const inbox = new InboxService({
    repo,
    inbox: new InboxRepo(db),
    agents,
    people,
    clock,
    resolveIdle: (chatbotId) => chat.resolveIdle(chatbotId),
  });
  // the visitor's Confirm / Cancel on an action's card
  const actionTurns = new ActionTurns({
    repo,
    agents,
    clock,
    log: app.log,
    events,
    plans: deps.plans,
    runner: deps.actions,
    providers: deps.providers,
  });
  return { chat, handoff, drafts, inbox, actionTurns, history };
}
