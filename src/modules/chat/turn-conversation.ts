import { newId } from '../../platform/ids.js';
import type { ConversationChannel } from '../../providers/channels/index.js';
import type { VisitorUser } from '../agents/index.js';
import type { ChatRepo } from './repo.js';
import type { ConversationRow } from './tables.js';

/**
 * A turn's conversation (service.ts `prepare`, in its transaction): the session's, or a new one,
 * with the visitor's details and, when this turn's user hash verified, the verified visitor.
 */
export function openConversation(
  repo: ChatRepo,
  at: {
    agentId: string;
    sessionId: string;
    input: { user_name?: string; user_email?: string; channel?: ConversationChannel };
    claimed: VisitorUser | undefined;
    now: string;
  },
): { conversation: ConversationRow; isNew: boolean; visitorUser: VisitorUser | undefined } {
  let conversation = repo.findConversationBySession(at.agentId, at.sessionId);
  const isNew = !conversation;
  // A conversation verified as one user never becomes another's: the session id sits in the
  // visitor's browser, so a valid hash for a different id on the same session (another user
  // signing in on a shared computer, or a session id passed around) must not show or act on
  // the first user's conversation as theirs. That turn stays anonymous for this conversation.
  const visitorUser =
    at.claimed && (!conversation?.visitor_user_id || conversation.visitor_user_id === at.claimed.id)
      ? at.claimed
      : undefined;
  // the site's name and e-mail prefill the visitor's details; what the visitor typed wins
  const visitor: { user_name?: string; user_email?: string } = {};
  const name = at.input.user_name ?? visitorUser?.name;
  const email = at.input.user_email ?? visitorUser?.email;
  if (name !== undefined) visitor.user_name = name;
  if (email !== undefined) visitor.user_email = email;
  conversation ??= repo.insertConversation({
    id: newId(),
    chatbot_id: at.agentId,
    session_id: at.sessionId,
    user_name: visitor.user_name ?? null,
    user_email: visitor.user_email ?? null,
    status: 'active',
    rating: null,
    message_count: 0,
    escalated_at: null,
    resolved_at: null,
    owner_read_at: null,
    handled_by: 'agent',
    taken_at: null,
    taken_by: null,
    owner_notified_at: null,
    channel: at.input.channel ?? 'web',
    verified: visitorUser !== undefined,
    visitor_user_id: visitorUser?.id ?? null,
    created_at: at.now,
    updated_at: at.now,
  });
  if (!isNew) {
    repo.updateVisitor(conversation.id, visitor);
    if (visitorUser && !conversation.verified) conversation = repo.markVerified(conversation.id, visitorUser.id);
  }
  return { conversation, isNew, visitorUser };
}
