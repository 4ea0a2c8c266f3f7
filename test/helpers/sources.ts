import { expect } from 'vitest';
import { auth, createAgent, multipartForm, registerUser, type TestApp, type useTestApps } from './app.js';
import { type FakeBehaviour, type FakeLlm, startFakeLlm } from './fake-llm.js';

/** Set-ups and requests the knowledge-source suites share (modules/ingestion, knowledge, website, chat, gaps). */

type Json = Record<string, any>;

/**
 * An app whose openai provider is a fake LLM answering `behaviour` (default 'Noted.'), with
 * keyword-only retrieval unless `env` says otherwise, an account and an agent. `key` is the
 * OPENAI_API_KEY the app is given (suites check it never leaks).
 */
export async function appWithFakeLlm(
  apps: ReturnType<typeof useTestApps>,
  key: string,
  opts: { env?: Record<string, string>; clock?: TestApp['clock']; behaviour?: Partial<FakeBehaviour> } = {},
): Promise<{ f: FakeLlm; t: TestApp; token: string; agent: Record<string, any> }> {
  const f = apps.before(await startFakeLlm('openai', { reply: 'Noted.', ...opts.behaviour }));
  const t = await apps.start({
    env: { EMBEDDINGS: 'none', OPENAI_API_KEY: key, OPENAI_BASE_URL: f.baseURL, ...opts.env },
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const { token } = await registerUser(t.app);
  const agent = await createAgent(t.app, token);
  return { f, t, token, agent };
}

/** The agent's sources as its owner lists them (200). */
export async function listSources(t: TestApp, token: string, agentId: string): Promise<Json[]> {
  const res = await t.app.inject({ method: 'GET', url: `/api/sources/chatbot/${agentId}`, headers: auth(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A text source added by JSON; must be 201; returns it. */
export async function addText(
  t: TestApp,
  token: string,
  agentId: string,
  name: string,
  content: string,
): Promise<Json> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/sources/chatbot/${agentId}/text`,
    headers: auth(token),
    payload: { name, content },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** One public chat; returns the system prompt the fake received for it (exactly one chat request) and the answer. */
export async function systemPromptFor(
  t: TestApp,
  f: FakeLlm,
  agentId: string,
  message: string,
): Promise<{ system: string; body: Json }> {
  const before = f.requests.filter((r) => r.kind === 'chat').length;
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/chat/${agentId}`,
    payload: { message, session_id: `s-${Math.random()}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  const chats = f.requests.filter((r) => r.kind === 'chat');
  expect(chats).toHaveLength(before + 1);
  const messages: Json[] = chats.at(-1)!.body.messages;
  return {
    system: messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n'),
    body: res.json(),
  };
}

/** A file uploaded as `filename` through the app (multipart, part `field`); returns the answer. */
export async function uploadFile(
  t: TestApp,
  token: string,
  agentId: string,
  filename: string,
  content: Uint8Array,
  field = 'file',
) {
  const { payload, headers } = await multipartForm({ [field]: { filename, content } });
  return t.app.inject({
    method: 'POST',
    url: `/api/sources/chatbot/${agentId}/file`,
    headers: { ...auth(token), ...headers },
    payload,
  });
}

/** A file uploaded as `filename` to a server at `base` over HTTP; returns the response. */
export async function postFile(
  base: string,
  token: string,
  agentId: string,
  filename: string,
  content: NonNullable<ConstructorParameters<typeof Blob>[0]>[number],
  type?: string,
): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([content], type ? { type } : {}), filename);
  return fetch(`${base}/api/sources/chatbot/${agentId}/file`, {
    method: 'POST',
    headers: auth(token),
    body: form,
  });
}
