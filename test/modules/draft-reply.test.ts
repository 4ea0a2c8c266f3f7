import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { PASSWORD, registerUser, send, sendExpect, type TestApp, uniqueEmail, useTestApps } from '../helpers/app.js';
import { chatRequests, providerSetup, publicChat } from '../helpers/chat.js';
import type { FakeBehaviour, RecordedRequest } from '../helpers/fake-llm.js';
import { addText } from '../helpers/sources.js';

/**
 * A drafted reply (issue 34 part 5, docs/API-NOTES.md "Drafted reply"): the real openai SDK talks
 * to the fake server on loopback; the draft is asked for as a chat turn is (the knowledge's passage
 * and the visitor's question in the prompt), stores nothing, counts no message, is open to an
 * operator, 404 for another account, and the no-key and provider-failure answers.
 */

type Json = Record<string, any>;

const KEY = 'sk-test-draft-reply-0123456789';
const PASSAGE = 'Worn jackets can be returned within 30 days when the receipt is included.';
const QUESTION = 'Can I return a worn jacket?';
const DRAFT = 'Yes, you can return it within 30 days with the receipt.';

const apps = useTestApps();

const draftUrl = (agentId: string, conversationId: string) =>
  `/api/chat/conversations/${agentId}/${conversationId}/draft-reply`;

/** An owner's agent on the fake openai, a returns passage, and a visitor's conversation taken over with its question unanswered. */
async function setup(behaviour: Partial<FakeBehaviour> = {}) {
  const { f, t, token, agent } = await providerSetup(
    apps,
    'openai',
    KEY,
    { name: 'Shop helper', instructions: 'You help the customers of Acme Outdoor. Be warm and brief.' },
    { behaviour: { reply: 'The agent answers.', ...behaviour } },
  );
  const source = await addText(t, token, agent.id, 'Returns', PASSAGE);
  await addText(t, token, agent.id, 'Shipping', 'Parcels ship by courier on weekdays.');
  const first = await publicChat(t, agent.id, { session_id: 'v1', message: 'Hello there' });
  expect(first.statusCode, first.body).toBe(200);
  const conversationId: string = first.json().conversation_id;
  await sendExpect(t.app, token, 'POST', `/api/chat/conversations/${agent.id}/${conversationId}/take`);
  const asked = await publicChat(t, agent.id, { session_id: 'v1', message: QUESTION });
  expect(asked.json()).toMatchObject({ message: '', handled_by: 'person' });
  return { f, t, token, agent, source, conversationId };
}

const transcript = (t: TestApp, token: string, conversationId: string): Promise<Json[]> =>
  sendExpect(t.app, token, 'GET', `/api/chat/messages/${conversationId}`);

const systemOf = (r: RecordedRequest) =>
  (r.body.messages as Json[])
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');

/** A teammate of `role` invited by the owner, joined; their token. */
async function teammate(app: App, ownerToken: string, role: 'operator' | 'manager'): Promise<string> {
  const inv = await sendExpect(app, ownerToken, 'POST', '/api/team/invitations', { email: uniqueEmail(), role }, 201);
  const token = new URL(inv.link.replace('/#/', '/')).searchParams.get('token');
  const joined = await sendExpect(
    app,
    null,
    'POST',
    '/api/team/join',
    { token, name: 'Mate', password: PASSWORD },
    201,
  );
  return joined.access_token;
}

describe('drafted reply with a provider key', () => {
  it("drafts the answer to the visitor's latest question from the knowledge base; nothing stored, no message counted", async () => {
    const { f, t, token, agent, source, conversationId } = await setup();
    f.setBehaviour({ reply: `  ${DRAFT}\n` });
    const before = await transcript(t, token, conversationId);
    const usage = await sendExpect(t.app, token, 'GET', '/api/usage');
    const chatsBefore = chatRequests(f).length;

    const body = await sendExpect(t.app, token, 'POST', draftUrl(agent.id, conversationId));
    expect(body).toEqual({
      draft: DRAFT,
      sources: [{ source_id: source.id, name: 'Returns', url: null, title: null, page: null }],
      model: agent.model,
    });

    // asked once, as a chat turn asks: the agent's instructions, the retrieved passage, the history, the question
    expect(chatRequests(f)).toHaveLength(chatsBefore + 1);
    const request = chatRequests(f).at(-1)!;
    expect(request.body.model).toBe(agent.model);
    const system = systemOf(request);
    expect(system).toContain('You help the customers of Acme Outdoor.');
    expect(system).toContain(PASSAGE);
    expect(system).not.toContain('Parcels ship by courier');
    expect(system).toContain('never say or suggest that you are an AI');
    const turns = (request.body.messages as Json[]).filter((m) => m.role !== 'system');
    expect(turns).toEqual([
      { role: 'user', content: 'Hello there' },
      { role: 'assistant', content: 'The agent answers.' },
      { role: 'user', content: QUESTION },
    ]);

    // nothing stored, nothing counted against the plan
    expect(await transcript(t, token, conversationId)).toEqual(before);
    expect(await sendExpect(t.app, token, 'GET', '/api/usage')).toEqual(usage);

    // the teammate edits and sends it through the reply route: that is what the visitor gets
    const sent = await sendExpect(
      t.app,
      token,
      'POST',
      `/api/chat/conversations/${agent.id}/${conversationId}/reply`,
      { message: `${DRAFT} Anna` },
      201,
    );
    expect(sent).toMatchObject({ content: `${DRAFT} Anna`, from_person: true });
  });

  it("the visitor's unanswered messages together; answered since: the visitor's last question again", async () => {
    const { f, t, token, agent, conversationId } = await setup();
    f.setBehaviour({ reply: DRAFT });
    await publicChat(t, agent.id, { session_id: 'v1', message: 'It is the blue one from March.' });
    await sendExpect(t.app, token, 'POST', draftUrl(agent.id, conversationId));
    let turns = (chatRequests(f).at(-1)!.body.messages as Json[]).filter((m) => m.role !== 'system');
    expect(turns.at(-1)).toEqual({ role: 'user', content: `${QUESTION}\n\nIt is the blue one from March.` });

    await sendExpect(
      t.app,
      token,
      'POST',
      `/api/chat/conversations/${agent.id}/${conversationId}/reply`,
      {
        message: 'Let me check.',
      },
      201,
    );
    await sendExpect(t.app, token, 'POST', draftUrl(agent.id, conversationId));
    turns = (chatRequests(f).at(-1)!.body.messages as Json[]).filter((m) => m.role !== 'system');
    expect(turns).toEqual([
      { role: 'user', content: 'Hello there' },
      { role: 'assistant', content: 'The agent answers.' },
      { role: 'user', content: `${QUESTION}\n\nIt is the blue one from March.` },
    ]);
  });

  it('an operator may ask for it; another account, another agent or a missing conversation is 404', async () => {
    const { t, token, agent, conversationId } = await setup({ reply: DRAFT });
    const operator = await teammate(t.app, token, 'operator');
    expect((await sendExpect(t.app, operator, 'POST', draftUrl(agent.id, conversationId))).draft).toBe(DRAFT);

    const other = await registerUser(t.app);
    const otherAgent = await sendExpect(t.app, other.token, 'POST', '/api/chatbots', { name: 'Other' }, 201);
    for (const [who, url] of [
      [other.token, draftUrl(agent.id, conversationId)],
      [other.token, draftUrl(otherAgent.id, conversationId)],
      [token, draftUrl(otherAgent.id, conversationId)],
      [token, draftUrl(agent.id, 'no-such-conversation')],
    ] as const) {
      const res = await send(t.app, who, 'POST', url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ detail: 'Conversation not found' });
    }
    expect((await send(t.app, null, 'POST', draftUrl(agent.id, conversationId))).statusCode).toBe(401);
  });

  it('a provider failure is 502 naming the provider; the transcript stays as it was', async () => {
    const { f, t, token, agent, conversationId } = await setup();
    const before = await transcript(t, token, conversationId);
    f.setBehaviour({ failTimes: 5, failStatus: 500 });
    const res = await send(t.app, token, 'POST', draftUrl(agent.id, conversationId));
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().detail).toMatch(
      /^The openai provider answered with an error \(HTTP 500\); no reply was drafted$/,
    );
    expect(res.body).not.toContain(KEY);
    expect(await transcript(t, token, conversationId)).toEqual(before);
  });

  it('a conversation without any visitor message is 409', async () => {
    const { t, token, agent, conversationId } = await setup();
    // no route makes one (a conversation begins with the visitor's message): written as a row
    const now = new Date().toISOString();
    t.database.sqlite
      .prepare(
        `INSERT INTO conversations (id, chatbot_id, session_id, status, message_count, handled_by, created_at, updated_at)
         VALUES ('empty-conversation', ?, 'v-empty', 'active', 0, 'person', ?, ?)`,
      )
      .run(agent.id, now, now);
    const res = await send(t.app, token, 'POST', draftUrl(agent.id, 'empty-conversation'));
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().detail).toMatch(/nothing to draft a reply to/);
    expect((await send(t.app, token, 'POST', draftUrl(agent.id, conversationId))).statusCode).toBe(200);
  });

  it("an expired plan is 402, as for the owner's chat; the provider is not asked", async () => {
    const { f, t, token, agent, conversationId } = await setup();
    // the first account of the server is its admin: it sets its own plan's expiry
    const me = await sendExpect(t.app, token, 'GET', '/api/auth/me');
    await sendExpect(t.app, token, 'PATCH', `/api/admin/users/${me.id}`, { plan_expires_at: '2020-01-01T00:00:00Z' });
    const chats = chatRequests(f).length;
    const res = await send(t.app, token, 'POST', draftUrl(agent.id, conversationId));
    expect(res.statusCode, res.body).toBe(402);
    expect(chatRequests(f)).toHaveLength(chats);
  });
});

describe('drafted reply without a provider key', () => {
  async function keyless() {
    const t = await apps.start({ env: { EMBEDDINGS: 'none' } });
    const { token } = await registerUser(t.app);
    const agent = await sendExpect(t.app, token, 'POST', '/api/chatbots', { name: 'Shop helper' }, 201);
    const source = await addText(t, token, agent.id, 'Returns', PASSAGE);
    return { t, token, agent, source };
  }

  it("quotes the knowledge base's answer with model null", async () => {
    const { t, token, agent, source } = await keyless();
    const c = (await publicChat(t, agent.id, { session_id: 'k1', message: QUESTION })).json();
    const body = await sendExpect(t.app, token, 'POST', draftUrl(agent.id, c.conversation_id));
    expect(body.model).toBeNull();
    expect(body.draft).toContain(PASSAGE);
    expect(body.sources).toEqual([{ source_id: source.id, name: 'Returns', url: null, title: null, page: null }]);
  });

  it('409 asking for a provider key when the knowledge base holds no answer', async () => {
    const { t, token, agent } = await keyless();
    const c = (await publicChat(t, agent.id, { session_id: 'k2', message: 'Do you sell bicycles in Lisbon?' })).json();
    const res = await send(t.app, token, 'POST', draftUrl(agent.id, c.conversation_id));
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().detail).toMatch(/add a provider key to get drafted replies$/);
  });
});
