import { joinAs, say, sendExpect, type TestApp, uniqueEmail } from './app.js';

/** The people of an account and what reaches them (team, inbox, office hours, notifications suites). */

/** An operator of the owner's account, joined with a fresh e-mail address: their token and that address. */
export async function joinOperator(t: TestApp, ownerToken: string): Promise<{ token: string; email: string }> {
  const email = uniqueEmail('op');
  return { token: await joinAs(t, ownerToken, 'operator', email), email };
}

/** A visitor's message in `session`, then the visitor asks for a person (must be 200): the escalation's JSON. */
export async function visitorEscalates(t: TestApp, agentId: string, session: string, message = 'Hello'): Promise<any> {
  await say(t, agentId, session, message);
  return sendExpect(t.app, null, 'POST', `/api/public/chat/${agentId}/escalate`, { session_id: session });
}

/** A saved reply made as `token` (201): its JSON. */
export function createSavedReply(
  t: TestApp,
  token: string,
  reply: { shortcut: string; content: string },
): Promise<any> {
  return sendExpect(t.app, token, 'POST', '/api/saved-replies', reply, 201);
}
