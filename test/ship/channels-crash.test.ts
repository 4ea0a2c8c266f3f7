import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type ChannelsLlm, lastUserText, startChannelsLlm } from '../helpers/channels-llm.js';
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
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.js';
import {
  bootServer,
  fromSource,
  postJson,
  type ServerProcess,
  stopServer,
  withTimeout,
} from '../helpers/server-process.js';

/**
 * docs/CHANNELS.md "Never lost, never twice", on the real server (a child process on a real SQLite
 * file) with a fake Telegram Bot API and a fake OpenAI-compatible provider: a kill -9 between a
 * message's receipt and its answer, or between the answer and its delivery, loses nothing and
 * answers once; an update Telegram delivers again, before and after a restart, is answered once.
 * (A kill before the update is stored is Telegram's to cover: unconfirmed, it is sent again.)
 */

const { tempDir, remove, closers } = useChannelProcesses('chat-agent-channels-crash-');

/** a private chat: its id is the person's id */
const PERSON = { id: 5_550_123, first_name: 'Ana', username: 'ana_b' };

/** a token of Telegram's form: `<bot id>:<35 characters>` */
function botToken(): string {
  return `${7_000_000_000 + Math.floor(Math.random() * 1_000_000)}:AAE${randomBytes(24).toString('base64url')}`;
}

/** Registers the owner, makes an agent answering with openai and connects the bot to it. */
async function agentOnTelegram(base: string, token: string): Promise<{ owner: string; agentId: string }> {
  const { owner, agentId, view } = await agentOnChannel(base, 'telegram', { bot_token: token });
  expect(view).toMatchObject({ state: 'connected', account_name: '@acme_help_bot', mode: 'polling' });
  return { owner, agentId };
}

async function login(base: string): Promise<string> {
  const res = await postJson(`${base}/api/auth/login`, { email: OWNER.email, password: OWNER.password });
  return (await json<{ access_token: string }>(res, 200)).access_token;
}

type Conversation = { id: string; channel: string };
type Message = { role: string; content: string; interrupted: boolean };

/** The agent's conversations, each with its transcript. */
async function transcripts(base: string, owner: string, agentId: string) {
  const list = await json<Conversation[]>(await get(base, `/api/chat/conversations/${agentId}`, owner), 200);
  return Promise.all(
    list.map(async (c) => ({
      channel: c.channel,
      messages: (await json<Message[]>(await get(base, `/api/chat/messages/${c.id}`, owner), 200)).map(
        ({ role, content, interrupted }) => ({ role, content, interrupted }),
      ),
    })),
  );
}

const pollsOf = (telegram: FakeTelegram, token: string) =>
  telegram.calls.filter((c) => c.token === token && c.method === 'getUpdates');

/**
 * What the channel tables hold once the server has stopped: each message received once and
 * answered (`done`), each reply sent, and no channel job left to run.
 */
function channelRecords(dataDir: string) {
  const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
  try {
    const rows = (sql: string) => db.prepare(sql).all();
    return {
      inbound: rows('SELECT external_id, state FROM channel_inbound ORDER BY rowid'),
      outbox: rows('SELECT state FROM channel_outbox ORDER BY rowid'),
      jobs: rows("SELECT kind, status FROM jobs WHERE kind LIKE 'channel.%'"),
    };
  } finally {
    db.close();
  }
}

/** the warnings and errors a server logged about channels (a poll or a store that failed, a job given up) */
const channelTrouble = (server: ServerProcess) =>
  server.records.filter((r) => r.level >= 40 && /channel/i.test(JSON.stringify(r)));

const said = (role: string, content: string) => ({ role, content, interrupted: false });

/** Starts the fakes: a bot `@acme_help_bot` and the provider (its first chat request held when asked). */
async function fakes(holdFirst: boolean) {
  const telegram = await startFakeTelegram();
  closers.push(telegram);
  const token = botToken();
  telegram.addBot({ token, username: 'acme_help_bot', first_name: 'Acme help' });
  const llm = await startChannelsLlm({ reply, holdFirst });
  closers.push(llm);
  return { telegram, token, llm };
}

/**
 * Boots the server again on `dataDir` after `first` was killed with QUESTION received: the answer
 * goes out once; a second message in the chat is answered after it (so the process is done with
 * the first); the model was asked `asked` times for QUESTION; the transcript and the channel
 * tables hold each message once.
 */
async function restartAnswersOnce(o: {
  telegram: FakeTelegram;
  token: string;
  llm: ChannelsLlm;
  first: { server: ServerProcess };
  dataDir: string;
  agentId: string;
  questionUpdate: number;
  asked: number;
}): Promise<void> {
  const { telegram, token, llm, dataDir } = o;
  const second = await bootServer(fromSource(), {
    env: channelServerEnv(dataDir, remove, { TELEGRAM_API_ROOT: telegram.root }, llm),
  });
  const sent = await telegram.waitForSent(token, 1, WAIT_MS);
  expect(sent.map((m) => [m.chat_id, m.text])).toEqual([[PERSON.id, ANSWER]]);

  // the process is done with the first message once a second one in the same chat is answered:
  // a chat's messages are answered one at a time, in order, and sent in order
  const thanksUpdate = telegram.pushMessage(token, { chatId: PERSON.id, from: PERSON, text: THANKS });
  const all = await telegram.waitForSent(token, 2, WAIT_MS);
  expect(all.map((m) => [m.chat_id, m.text])).toEqual([
    [PERSON.id, ANSWER],
    [PERSON.id, WELCOME],
  ]);
  expect(llm.chats.map(lastUserText)).toEqual([...Array(o.asked).fill(QUESTION), THANKS]);

  const owner = await login(second.base);
  expect(await transcripts(second.base, owner, o.agentId)).toEqual([
    {
      channel: 'telegram',
      messages: [said('user', QUESTION), said('assistant', ANSWER), said('user', THANKS), said('assistant', WELCOME)],
    },
  ]);
  expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });
  expect(telegram.sent(token)).toHaveLength(2);
  expect([...channelTrouble(o.first.server), ...channelTrouble(second.server)]).toEqual([]);
  expect(channelRecords(dataDir)).toEqual({
    inbound: [
      { external_id: String(o.questionUpdate), state: 'done' },
      { external_id: String(thanksUpdate), state: 'done' },
    ],
    outbox: [{ state: 'sent' }, { state: 'sent' }],
    jobs: [],
  });
}

describe('Telegram messages across a crash', () => {
  it('kill -9 between receipt and answer: after the restart the stored message is answered once, nothing is lost', {
    timeout: 120_000,
  }, async () => {
    const { telegram, token, llm } = await fakes(true);
    const dataDir = tempDir();
    const first = await bootServer(fromSource(), {
      env: channelServerEnv(dataDir, remove, { TELEGRAM_API_ROOT: telegram.root }, llm),
    });
    const { agentId } = await agentOnTelegram(first.base, token);
    await telegram.waitForPoll(token, WAIT_MS);

    const questionUpdate = telegram.pushMessage(token, { chatId: PERSON.id, from: PERSON, text: QUESTION });
    // the model was asked: the message is stored (it is stored before the model is asked), its
    // update confirmed or not, and the answer is in progress
    await llm.waitForChat(1, WAIT_MS);
    expect(lastUserText(llm.chats[0]!)).toBe(QUESTION);
    first.server.child.kill('SIGKILL');
    expect(await withTimeout(first.server.exited, 20_000, 'the killed server to exit')).toMatchObject({
      signal: 'SIGKILL',
    });
    expect(telegram.sent(token)).toEqual([]);

    await restartAnswersOnce({ telegram, token, llm, first, dataDir, agentId, questionUpdate, asked: 2 });
  });

  it('kill -9 between the answer and its delivery: the stored answer goes out once after the restart, not asked again', {
    timeout: 120_000,
  }, async () => {
    const { telegram, token, llm } = await fakes(false);
    // the first send fails as Telegram having a bad moment: the answer waits in the outbox for a retry
    telegram.failSends(token, 1, { error_code: 502, description: 'Bad Gateway' });
    const dataDir = tempDir();
    const first = await bootServer(fromSource(), {
      env: channelServerEnv(dataDir, remove, { TELEGRAM_API_ROOT: telegram.root }, llm),
    });
    const { agentId } = await agentOnTelegram(first.base, token);
    await telegram.waitForPoll(token, WAIT_MS);

    const questionUpdate = telegram.pushMessage(token, { chatId: PERSON.id, from: PERSON, text: QUESTION });
    // a send was tried: the answer is stored (it is queued in the transaction that stores it); the
    // answering job has most likely ended too, which this cannot tell: the kill falls where it falls
    await telegram.waitForCall(token, 'sendMessage', 1, WAIT_MS);
    first.server.child.kill('SIGKILL');
    expect(await withTimeout(first.server.exited, 20_000, 'the killed server to exit')).toMatchObject({
      signal: 'SIGKILL',
    });
    expect(telegram.sent(token)).toEqual([]);

    await restartAnswersOnce({ telegram, token, llm, first, dataDir, agentId, questionUpdate, asked: 1 });
  });

  it('an update Telegram delivers again, in the same process and after a restart, is answered once', {
    timeout: 120_000,
  }, async () => {
    const { telegram, token, llm } = await fakes(false);
    const dataDir = tempDir();
    const first = await bootServer(fromSource(), {
      env: channelServerEnv(dataDir, remove, { TELEGRAM_API_ROOT: telegram.root }, llm),
    });
    const { agentId } = await agentOnTelegram(first.base, token);
    await telegram.waitForPoll(token, WAIT_MS);

    // built here (not by pushMessage) so that the very same update can be delivered again
    const chat = { id: PERSON.id, type: 'private', first_name: PERSON.first_name, username: PERSON.username };
    const from = { id: PERSON.id, is_bot: false, first_name: PERSON.first_name, username: PERSON.username };
    const message = { message_id: 1, from, chat, date: Math.floor(Date.now() / 1000), text: QUESTION };
    const polls = telegram.callsOf(token, 'getUpdates');
    const updateId = telegram.pushUpdate(token, { message });
    expect((await telegram.waitForSent(token, 1, WAIT_MS)).map((m) => m.text)).toEqual([ANSWER]);
    // the poll after the one that brought it carries the stored offset (it confirms the update)
    await telegram.waitForCall(token, 'getUpdates', polls + 1, WAIT_MS);
    const confirming = pollsOf(telegram, token)[polls]!;
    expect(Number(confirming.params.offset)).toBe(updateId + 1);

    /** delivers the update again to the poll being held and waits for the poll that follows it */
    async function deliverAgain(): Promise<void> {
      await telegram.waitForPoll(token, WAIT_MS);
      const before = telegram.callsOf(token, 'getUpdates');
      // the fake answers the held poll with it whatever its offset: Telegram sending it once more
      expect(telegram.pushUpdate(token, { update_id: updateId, message })).toBe(updateId);
      await telegram.waitForCall(token, 'getUpdates', before + 1, WAIT_MS);
    }
    await deliverAgain();

    // a graceful stop: a kill -9 just after the send could fall in the instant between Telegram
    // taking a message and the server recording it, where docs/CHANNELS.md says it can go twice
    expect(await stopServer(first.server)).toEqual({ code: 0, signal: null });
    const pollsBefore = telegram.callsOf(token, 'getUpdates');
    const second = await bootServer(fromSource(), {
      env: channelServerEnv(dataDir, remove, { TELEGRAM_API_ROOT: telegram.root }, llm),
    });
    // the new process's own poll is the one held (not what is left of the old one's)
    await telegram.waitForCall(token, 'getUpdates', pollsBefore + 1, WAIT_MS);
    await telegram.waitForPoll(token, WAIT_MS);
    const resumed = pollsOf(telegram, token)[pollsBefore]!;
    expect(Number(resumed.params.offset), 'the stored offset survived the restart').toBe(updateId + 1);
    await deliverAgain();

    // a new message in the same chat is answered after anything queued before it in that chat
    const thanksUpdate = telegram.pushMessage(token, { chatId: PERSON.id, from: PERSON, text: THANKS });
    const sent = await telegram.waitForSent(token, 2, WAIT_MS);
    expect(sent.map((m) => [m.chat_id, m.text])).toEqual([
      [PERSON.id, ANSWER],
      [PERSON.id, WELCOME],
    ]);
    expect(llm.chats.map(lastUserText)).toEqual([QUESTION, THANKS]);
    const owner = await login(second.base);
    expect(await transcripts(second.base, owner, agentId)).toEqual([
      {
        channel: 'telegram',
        messages: [said('user', QUESTION), said('assistant', ANSWER), said('user', THANKS), said('assistant', WELCOME)],
      },
    ]);
    expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });
    // each delivery was stored (kept once) without an error: the poll after it came at once
    expect([...channelTrouble(first.server), ...channelTrouble(second.server)]).toEqual([]);
    expect(channelRecords(dataDir)).toEqual({
      inbound: [
        { external_id: String(updateId), state: 'done' },
        { external_id: String(thanksUpdate), state: 'done' },
      ],
      outbox: [{ state: 'sent' }, { state: 'sent' }],
      jobs: [],
    });
  });
});
