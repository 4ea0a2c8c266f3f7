import { afterEach, expect } from 'vitest';
import { type ChannelsLlm, lastUserText } from './channels-llm.js';
import { postJson, serverEnv, unlimitedPlansFile, useServerProcesses } from './server-process.js';

/**
 * What the channels' crash tests (test/ship/channels-*-crash.test.ts) share: the conversation the
 * fake model holds (a question, then thanks), the owner, the server's environment, and the owner's
 * first steps on a booted server (register, an agent answering with openai, the channel connected).
 */

export const QUESTION = 'When are you open?';
export const ANSWER = 'Our opening hours are 9 to 5.';
export const THANKS = 'Thanks!';
export const WELCOME = 'You are welcome!';
export const OWNER = { name: 'Owner', email: 'owner@example.com', password: 'a long enough password' };
/** event-driven waits, sized for a busy machine */
export const WAIT_MS = 45_000;

export const reply = (req: { body: unknown }) =>
  lastUserText(req.body as ChannelsLlm['chats'][number]) === QUESTION ? ANSWER : WELCOME;

/**
 * A crash test's processes and fakes: what `closers` holds (the fake network and model) is closed
 * after the servers are stopped (its afterEach is registered first, so it runs last).
 */
export function useChannelProcesses(prefix: string) {
  const closers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c.close();
  }, 60_000);
  return { ...useServerProcesses(prefix), closers };
}

/** A server's environment with `apiRoot` (TELEGRAM_API_ROOT, WHATSAPP_API_ROOT; or the e-mail channel's ALLOW_PRIVATE_URLS and SMTP_URL) and the fake model as openai. */
export function channelServerEnv(
  dataDir: string,
  remove: (p: string) => string,
  apiRoot: Record<string, string>,
  llm: ChannelsLlm,
): Record<string, string> {
  const plans = remove(unlimitedPlansFile(`${dataDir}-plans.json`));
  return serverEnv(dataDir, {
    REGISTRATION: 'open',
    PLANS_FILE: plans,
    ...apiRoot,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: llm.baseURL,
  });
}

export async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

export const get = (base: string, path: string, token: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });

/** Registers the owner, makes an agent answering with openai and connects `channel` with `credentials`. */
export async function agentOnChannel(
  base: string,
  channel: 'telegram' | 'whatsapp' | 'email',
  credentials: Record<string, string>,
): Promise<{ owner: string; agentId: string; view: Record<string, unknown> }> {
  const { access_token: owner } = await json<{ access_token: string }>(
    await postJson(`${base}/api/auth/register`, OWNER),
    201,
  );
  const { id: agentId } = await json<{ id: string }>(
    // no lead form: its share-your-phone message would come between the answers counted here
    await postJson(
      `${base}/api/chatbots`,
      { name: 'Shop bot', provider: 'openai', lead_capture_enabled: false },
      owner,
    ),
    201,
  );
  const connected = await fetch(`${base}/api/chatbots/${agentId}/channels/${channel}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
    body: JSON.stringify(credentials),
  });
  return { owner, agentId, view: await json<Record<string, unknown>>(connected, 200) };
}
