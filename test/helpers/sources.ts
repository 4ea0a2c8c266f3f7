import { expect } from 'vitest';
import { auth, multipartForm, send, sendExpect, type TestApp, type useTestApps, accountWithAgent } from './app.js';
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
  const { token, agent } = await accountWithAgent(t.app);
  return { f, t, token, agent };
}

/** The agent's sources as its owner lists them (200). */
export function listSources(t: TestApp, token: string, agentId: string): Promise<Json[]> {
  return sendExpect(t.app, token, 'GET', `/api/sources/chatbot/${agentId}`);
}

/** A text source added by JSON; must be 201; returns it. */
export function addText(t: TestApp, token: string, agentId: string, name: string, content: string): Promise<Json> {
  return sendExpect(t.app, token, 'POST', `/api/sources/chatbot/${agentId}/text`, { name, content }, 201);
}

export type SourceKind = 'text' | 'website' | 'file';

/** A source of `kind` added with `body` as JSON; returns the answer, whatever it is. */
export function postSource(t: TestApp, token: string, agentId: string, kind: SourceKind, body: unknown) {
  return send(t.app, token, 'POST', `/api/sources/chatbot/${agentId}/${kind}`, body);
}

/** A source of `kind` added as multipart/form-data (see multipartForm); returns the answer, whatever it is. */
export async function postSourceForm(
  t: TestApp,
  token: string,
  agentId: string,
  kind: SourceKind,
  fields: Parameters<typeof multipartForm>[0],
) {
  const { payload, headers } = await multipartForm(fields);
  return t.app.inject({
    method: 'POST',
    url: `/api/sources/chatbot/${agentId}/${kind}`,
    headers: { ...auth(token), ...headers },
    payload,
  });
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
export function uploadFile(
  t: TestApp,
  token: string,
  agentId: string,
  filename: string,
  content: Uint8Array,
  field = 'file',
) {
  return postSourceForm(t, token, agentId, 'file', { [field]: { filename, content } });
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
