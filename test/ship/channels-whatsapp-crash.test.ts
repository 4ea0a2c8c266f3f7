import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { lastUserText, startChannelsLlm } from '../helpers/channels-llm.js';
import {
  ANSWER,
  agentOnChannel,
  channelServerEnv,
  get,
  json,
  OWNER,
  QUESTION,
  reply,
  THANKS,
  useChannelProcesses,
  WAIT_MS,
  WELCOME,
} from '../helpers/channels-process.js';
import { startFakeWhatsApp, textMessageBody } from '../helpers/fake-whatsapp.js';
import {
  bootServer,
  fromSource,
  postJson,
  type ServerProcess,
  stopServer,
  withTimeout,
} from '../helpers/server-process.js';

/**
 * docs/CHANNELS.md "Never lost, never twice" for WhatsApp, on the real server (a child process on
 * a real SQLite file) with a fake Graph API and a fake OpenAI-compatible provider: a message Meta
 * posted (signed) is stored before the 200; a kill -9 while its answer is being written loses
 * nothing, and after the restart it is answered once, Meta's second post of it included.
 */

const { tempDir, remove, closers } = useChannelProcesses('chat-agent-whatsapp-crash-');

const PERSON = { from: '31612345678', name: 'Ana de Vries' };

describe('WhatsApp messages across a crash', () => {
  it('kill -9 between receipt and answer: after the restart the stored message is answered once', {
    timeout: 120_000,
  }, async () => {
    const whatsapp = await startFakeWhatsApp();
    closers.push(whatsapp);
    const llm = await startChannelsLlm({ reply, holdFirst: true });
    closers.push(llm);
    const credentials = {
      phone_number_id: '106540352242922',
      access_token: `EAAG${randomBytes(40).toString('base64url')}`,
      app_secret: randomBytes(16).toString('hex'),
      verify_token: `verify-${randomBytes(8).toString('hex')}`,
    };
    const number = credentials.phone_number_id;
    whatsapp.addNumber({
      phoneNumberId: number,
      token: credentials.access_token,
      display: '+1 555-0100',
      name: 'Acme',
    });
    const dataDir = tempDir();
    const first = await bootServer(fromSource(), {
      env: channelServerEnv(dataDir, remove, { WHATSAPP_API_ROOT: whatsapp.root }, llm),
    });

    const { agentId, view } = await agentOnChannel(first.base, 'whatsapp', credentials);
    expect(view).toMatchObject({ state: 'connected', account_name: '+1 555-0100' });

    const question = textMessageBody({ phoneNumberId: number, ...PERSON, id: 'wamid.question', text: QUESTION });
    const hook = (base: string) => `${base}/api/channels/whatsapp/${agentId}`;
    expect((await whatsapp.deliver(hook(first.base), question, credentials.app_secret)).status).toBe(200);
    // the model was asked: the message is stored (before the 200) and its answer is in progress
    await llm.waitForChat(1, WAIT_MS);
    expect(lastUserText(llm.chats[0]!)).toBe(QUESTION);
    first.server.child.kill('SIGKILL');
    expect(await withTimeout(first.server.exited, 20_000, 'the killed server to exit')).toMatchObject({
      signal: 'SIGKILL',
    });
    expect(whatsapp.sent(number)).toEqual([]);

    const second = await bootServer(fromSource(), {
      env: channelServerEnv(dataDir, remove, { WHATSAPP_API_ROOT: whatsapp.root }, llm),
    });
    const sent = await whatsapp.waitForSent(number, 1, WAIT_MS);
    expect(sent.map((m) => [m.to, m.body])).toEqual([[PERSON.from, ANSWER]]);
    // Meta did not see the first process's 200 for sure: it posts the message again, kept once
    expect((await whatsapp.deliver(hook(second.base), question, credentials.app_secret)).status).toBe(200);
    // the process is done with the question once a second message in the same chat is answered:
    // a chat's messages are answered one at a time, in order, and sent in order
    const thanks = textMessageBody({ phoneNumberId: number, ...PERSON, id: 'wamid.thanks', text: THANKS });
    expect((await whatsapp.deliver(hook(second.base), thanks, credentials.app_secret)).status).toBe(200);
    const all = await whatsapp.waitForSent(number, 2, WAIT_MS);
    expect(all.map((m) => m.body)).toEqual([ANSWER, WELCOME]);
    expect(llm.chats.map(lastUserText)).toEqual([QUESTION, QUESTION, THANKS]);

    const login = await postJson(`${second.base}/api/auth/login`, { email: OWNER.email, password: OWNER.password });
    const { access_token: again } = await json<{ access_token: string }>(login, 200);
    const list = await json<Array<{ id: string; channel: string }>>(
      await get(second.base, `/api/chat/conversations/${agentId}`, again),
      200,
    );
    expect(list.map((c) => c.channel)).toEqual(['whatsapp']);
    const messages = await json<Array<{ role: string; content: string }>>(
      await get(second.base, `/api/chat/messages/${list[0]!.id}`, again),
      200,
    );
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', QUESTION],
      ['assistant', ANSWER],
      ['user', THANKS],
      ['assistant', WELCOME],
    ]);
    expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });
    expect(whatsapp.sent(number)).toHaveLength(2);
    const trouble = (s: ServerProcess) => s.records.filter((r) => r.level >= 40 && /channel/i.test(JSON.stringify(r)));
    expect([...trouble(first.server), ...trouble(second.server)]).toEqual([]);

    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT external_id, state FROM channel_inbound ORDER BY rowid').all()).toEqual([
        { external_id: 'wamid.question', state: 'done' },
        { external_id: 'wamid.thanks', state: 'done' },
      ]);
      expect(db.prepare('SELECT state FROM channel_outbox ORDER BY rowid').all()).toEqual([
        { state: 'sent' },
        { state: 'sent' },
      ]);
      expect(db.prepare("SELECT kind, status FROM jobs WHERE kind LIKE 'channel.%'").all()).toEqual([]);
    } finally {
      db.close();
    }
  });
});
