import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, startChannelsLlm } from '../helpers/channels-llm.js';
import {
  ANSWER,
  agentOnChannel,
  channelServerEnv,
  QUESTION,
  reply,
  THANKS,
  useChannelProcesses,
  WAIT_MS,
  WELCOME,
} from '../helpers/channels-process.js';
import { rawMail, startImap, type TestImap } from '../helpers/dovecot.js';
import { bootServer, fromSource, type ServerProcess, stopServer, withTimeout } from '../helpers/server-process.js';
import { startSmtp } from '../helpers/smtp.js';

/**
 * docs/CHANNELS.md "Never lost, never twice" for e-mail, on the real server (a child process on a
 * real SQLite file), a real IMAP server (Dovecot) and an SMTP sink, with a fake OpenAI-compatible
 * provider: a mail read from the mailbox is stored with the mailbox's offset before it is
 * answered; a kill -9 while its answer is being written loses nothing, and after the restart it
 * is answered once, by one e-mail threaded under it.
 */

const { tempDir, remove, closers } = useChannelProcesses('chat-agent-email-crash-');
const ADDRESS = 'help@shop.test';
const ANN = 'Ann Visitor <ann@customer.test>';

let imap: TestImap;
beforeAll(async () => {
  imap = await startImap({ users: ['shop'] });
}, 30_000);
afterAll(async () => {
  await imap?.stop();
}, 30_000);

describe('e-mail across a crash', () => {
  it('kill -9 between receipt and answer: after the restart the stored mail is answered once', {
    timeout: 120_000,
  }, async () => {
    const smtp = await startSmtp();
    closers.push(smtp);
    const llm = await startChannelsLlm({ reply, holdFirst: true });
    closers.push(llm);
    const dataDir = tempDir();
    const env = () =>
      channelServerEnv(dataDir, remove, { ALLOW_PRIVATE_URLS: 'true', SMTP_URL: smtp.url, SMTP_FROM: 'a@test' }, llm);
    const first = await bootServer(fromSource(), { env: env() });
    const { view } = await agentOnChannel(first.base, 'email', { imap_url: imap.url('shop'), address: ADDRESS });
    expect(view).toMatchObject({ state: 'connected', account_name: ADDRESS });

    // the subject is the question itself: the text the model sees is the question alone
    await imap.append(
      'shop',
      rawMail({ from: ANN, to: ADDRESS, subject: QUESTION, text: `${QUESTION}\n`, messageId: '<q@customer.test>' }),
    );
    // the model was asked: the mail is stored (with the mailbox's offset) and its answer is in progress
    await llm.waitForChat(1, WAIT_MS);
    expect(lastUserText(llm.chats[0]!)).toBe(QUESTION);
    first.server.child.kill('SIGKILL');
    expect(await withTimeout(first.server.exited, 20_000, 'the killed server to exit')).toMatchObject({
      signal: 'SIGKILL',
    });
    expect(smtp.messages).toEqual([]);

    const second = await bootServer(fromSource(), { env: env() });
    const answer = await withTimeout(smtp.waitFor(1), WAIT_MS, 'the answer after the restart');
    expect([answer.to, answer.headers['in-reply-to'], answer.body.trim()]).toEqual([
      ['ann@customer.test'],
      '<q@customer.test>',
      ANSWER,
    ]);
    // the process is done with the question once a second mail from her is answered: a chat's
    // messages are answered one at a time, in order
    await imap.append(
      'shop',
      rawMail({
        from: ANN,
        to: ADDRESS,
        subject: `Re: ${QUESTION}`,
        text: `${THANKS}\n`,
        inReplyTo: answer.headers['message-id'],
      }),
    );
    const thanks = await withTimeout(smtp.waitFor(2), WAIT_MS, 'the second answer');
    expect(thanks.body.trim()).toBe(WELCOME);
    expect(llm.chats.map(lastUserText)).toEqual([QUESTION, QUESTION, THANKS]);
    expect(await stopServer(second.server)).toEqual({ code: 0, signal: null });
    expect(smtp.messages).toHaveLength(2);
    const trouble = (s: ServerProcess) =>
      s.records.filter((r) => r.level >= 40 && /channel|mail/i.test(JSON.stringify(r)));
    expect([...trouble(first.server), ...trouble(second.server)]).toEqual([]);
    // the mailbox's password is in no log line, whole or percent-encoded
    const logged = JSON.stringify([...first.server.records, ...second.server.records]);
    for (const secret of [imap.users.shop!, encodeURIComponent(imap.users.shop!)]) expect(logged).not.toContain(secret);

    const db = new Database(path.join(dataDir, 'chat-agent.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT state FROM channel_inbound ORDER BY rowid').all()).toEqual([
        { state: 'done' },
        { state: 'done' },
      ]);
      expect(db.prepare("SELECT status FROM mail_outbox WHERE kind = 'channel_reply'").all()).toEqual([
        { status: 'sent' },
        { status: 'sent' },
      ]);
      expect(db.prepare("SELECT kind FROM jobs WHERE kind LIKE 'channel.%' OR kind LIKE 'send-%'").all()).toEqual([]);
    } finally {
      db.close();
    }
  });
});
