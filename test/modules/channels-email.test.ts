import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithAgent, send, sendExpect, type TestApp, useTestApps } from '../helpers/app.js';
import { channelsIdle, OPENING_HOURS } from '../helpers/channels.js';
import { type RawMailFields, rawMail, startImap, type TestImap } from '../helpers/dovecot.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { addText } from '../helpers/sources.js';

// The e-mail channel on a real IMAP server (Dovecot, started here) and a real SMTP sink: a
// message in, the answer out threaded under it; noise and loops never answered; a teammate's
// reply out; the per-sender cap; the channel's own SMTP server. kill -9: test/ship/channels-email-crash.test.ts.

type Json = Record<string, any>;
const ADDRESS = 'help@shop.test';
const ANN = 'Ann Visitor <ann@customer.test>';

let imap: TestImap;
beforeAll(async () => {
  imap = await startImap({ users: ['shop', 'other'] });
}, 30_000);
afterAll(async () => {
  await imap?.stop();
}, 30_000);

const apps = useTestApps();

/** an app mailing through a new SMTP sink, an agent that knows its opening hours, the mailbox connected */
async function start(env: Record<string, string> = {}, connect = true, serverSmtp = true) {
  const smtp: TestSmtp = apps.before(await startSmtp());
  const mail: Record<string, string> = serverSmtp ? { SMTP_URL: smtp.url, SMTP_FROM: 'alerts@chat-agent.test' } : {};
  const t = await apps.start({ env: { ALLOW_PRIVATE_URLS: 'true', ...mail, ...env } });
  const { token, agent } = await accountWithAgent(t.app, { lead_capture_enabled: false, name: 'Shop' });
  await addText(t, token, agent.id, 'Hours', OPENING_HOURS);
  await t.app.jobs.idle();
  const url = `/api/chatbots/${agent.id}/channels/email`;
  const view = connect
    ? await sendExpect(t.app, token, 'PUT', url, { imap_url: imap.url('shop'), address: ADDRESS }, 200)
    : null;
  return { t, smtp, token, agent: agent as Json, url, view };
}

/** delivers a mail from Ann to the shop's mailbox (the question about opening hours unless `text` says otherwise) */
function mailFromAnn(fields: Partial<RawMailFields> & { subject: string }) {
  return imap.append('shop', rawMail({ from: ANN, to: ADDRESS, text: 'When are you open?\n', ...fields }));
}

/** every queue of the way out is done: the channel's and the mail outbox's */
async function allSent(t: TestApp) {
  await channelsIdle(t);
  await t.app.mailJobs.idle();
}

describe('channels: e-mail (IMAP in, the mail outbox out)', () => {
  it('connects a mailbox: both servers checked, the address shown back, the password never', async () => {
    const { t, token, url } = await start({}, false);
    const put = (body: Json) => send(t.app, token, 'PUT', url, body);
    const notUrl = await put({ imap_url: 'mail.shop.test', address: ADDRESS });
    expect([notUrl.statusCode, notUrl.json().detail]).toEqual([400, expect.stringMatching(/^imap_url: not a URL/)]);
    const noPassword = await put({ imap_url: 'imaps://mail.shop.test', address: ADDRESS });
    expect(noPassword.json().detail).toMatch(/^imap_url: needs the mailbox user name and password/);
    const notAddress = await put({ imap_url: imap.url('shop'), address: 'help' });
    expect(notAddress.json().detail).toBe('address: not an e-mail address');
    const wrongPassword = imap.url('shop').replace(encodeURIComponent(imap.users.shop!), 'not-the-password');
    const refused = await put({ imap_url: wrongPassword, address: ADDRESS });
    expect([refused.statusCode, refused.json().detail]).toEqual([
      400,
      expect.stringMatching(/^imap_url: the IMAP server refused the user name or password/),
    ]);
    expect(refused.body).not.toContain('not-the-password');

    const view = await sendExpect(t.app, token, 'PUT', url, { imap_url: imap.url('shop'), address: ADDRESS }, 200);
    expect(view).toMatchObject({
      channel: 'email',
      state: 'connected',
      account_name: ADDRESS,
      display_name: 'INBOX on 127.0.0.1',
      mode: 'polling',
      error: null,
    });
    const listed = await send(t.app, token, 'GET', url.replace(/\/email$/, ''));
    expect(listed.json().map((c: Json) => c.channel)).toEqual(['telegram', 'whatsapp', 'email']);
    const stored = JSON.stringify(t.database.sqlite.prepare('SELECT * FROM channel_connections').all());
    for (const text of [listed.body, stored]) {
      expect(text).not.toContain(encodeURIComponent(imap.users.shop!));
      expect(text).not.toContain(imap.users.shop!);
    }
    // another agent of another account cannot take the same mailbox
    const other = await accountWithAgent(t.app);
    const taken = await send(t.app, other.token, 'PUT', `/api/chatbots/${other.agent.id}/channels/email`, {
      imap_url: imap.url('shop'),
      address: ADDRESS.toUpperCase(),
    });
    expect([taken.statusCode, taken.json().detail]).toEqual([409, expect.stringMatching(/^address: this mailbox/)]);
    expect((await send(t.app, token, 'DELETE', url)).statusCode).toBe(204);
  });

  it('IMAP and SMTP hosts on loopback or private addresses are refused without ALLOW_PRIVATE_URLS', async () => {
    const { t, token, url } = await start({ ALLOW_PRIVATE_URLS: 'false' }, false);
    const imapRefused = await send(t.app, token, 'PUT', url, { imap_url: imap.url('shop'), address: ADDRESS });
    expect([imapRefused.statusCode, imapRefused.json().detail]).toEqual([
      400,
      expect.stringMatching(/^imap_url: 127\.0\.0\.1 is not a public address/),
    ]);
    const byName = await send(t.app, token, 'PUT', url, {
      imap_url: 'imaps://u:p@localhost:993',
      address: ADDRESS,
    });
    expect(byName.json().detail).toMatch(/^imap_url: localhost is an internal host name/);
    // the SMTP host is checked before either server is connected to (the IMAP one here is never reached)
    const smtpRefused = await send(t.app, token, 'PUT', url, {
      imap_url: 'imaps://u:p@1.1.1.1',
      address: ADDRESS,
      smtp_url: 'smtp://u:p@10.0.0.5:587',
    });
    expect(smtpRefused.json().detail).toMatch(/^smtp_url: 10\.0\.0\.5 is not a public address/);
    expect(t.database.sqlite.prepare('SELECT count(*) AS n FROM channel_connections').get()).toEqual({ n: 0 });
  });

  it('a message in, the answer out as a threaded reply from the mailbox; the conversation says email', async () => {
    const { t, smtp, token, agent } = await start();
    await mailFromAnn({
      subject: 'Weekend',
      text: 'When are you open on Saturdays?\n',
      messageId: '<q1@customer.test>',
    });
    const answer = await smtp.waitFor(1);
    expect(answer.to).toEqual(['ann@customer.test']);
    expect(answer.headers.from).toBe('Shop <help@shop.test>');
    expect(answer.headers.subject).toBe('Re: Weekend');
    expect(answer.headers['in-reply-to']).toBe('<q1@customer.test>');
    expect(answer.headers.references).toBe('<q1@customer.test>');
    expect(answer.body).toMatch(/Saturdays the shop opens at 10/);
    await allSent(t);

    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    expect(conversation).toMatchObject({ channel: 'email', user_name: 'Ann Visitor', message_count: 2 });
    const messages = await sendExpect(t.app, token, 'GET', `/api/chat/messages/${conversation.id}`);
    expect(messages.map((m: Json) => m.role)).toEqual(['user', 'assistant']);
    // a first message's subject is part of the question
    expect(messages[0].content).toBe('Weekend\n\nWhen are you open on Saturdays?');
    const outbox = t.database.sqlite.prepare(
      "SELECT kind, status, to_address FROM mail_outbox WHERE kind = 'channel_reply'",
    );
    expect(outbox.all()).toEqual([{ kind: 'channel_reply', status: 'sent', to_address: 'ann@customer.test' }]);

    // her reply (quoting ours) continues the same conversation, threaded under her new message
    await mailFromAnn({
      subject: 'Re: Weekend',
      text: `Thanks! And Sundays?\n\nOn Sat, Shop wrote:\n> ${answer.body.trim().split('\n').join('\n> ')}\n`,
      messageId: '<q2@customer.test>',
      inReplyTo: answer.headers['message-id'],
      references: ['<q1@customer.test>', answer.headers['message-id']!],
    });
    const second = await smtp.waitFor(2);
    expect(second.headers['in-reply-to']).toBe('<q2@customer.test>');
    expect(second.headers.references?.split(/\s+/)).toEqual([
      '<q1@customer.test>',
      answer.headers['message-id'],
      '<q2@customer.test>',
    ]);
    await allSent(t);
    const after = await sendExpect(t.app, token, 'GET', `/api/chat/messages/${conversation.id}`);
    expect(after.map((m: Json) => m.content)[2]).toBe('Thanks! And Sundays?');
  });

  it('never answered: auto-replies, bounces, mailing lists, our own address; the same Message-ID twice is answered once', async () => {
    const { t, smtp } = await start();
    const noise: Array<{ subject: string; from?: string; headers?: Record<string, string> }> = [
      { subject: 'Out of office', headers: { 'Auto-Submitted': 'auto-replied' } },
      { subject: 'Undelivered Mail', from: 'MAILER-DAEMON@relay.test', headers: { 'Return-Path': '<>' } },
      { subject: 'Weekly news', headers: { 'List-Id': 'news.customer.test', Precedence: 'list' } },
      { subject: 'From ourselves', from: ADDRESS },
    ];
    for (const [i, n] of noise.entries())
      await imap.append(
        'shop',
        rawMail({
          from: n.from ?? ANN,
          to: ADDRESS,
          subject: n.subject,
          text: 'When are you open?\n',
          messageId: `<noise${i}@customer.test>`,
          headers: n.headers,
        }),
      );
    const question = rawMail({
      from: ANN,
      to: ADDRESS,
      subject: 'Hours',
      text: 'When are you open?\n',
      messageId: '<dup@customer.test>',
    });
    await imap.append('shop', question);
    await imap.append('shop', question); // a copy of the same message (the same Message-ID)
    await smtp.waitFor(1);
    await allSent(t);
    // a second question after them all: once it is answered, everything before it was looked at
    await mailFromAnn({ subject: 'Saturday', text: 'And Saturdays?\n' });
    await smtp.waitFor(2);
    await allSent(t);
    expect(smtp.messages.map((m) => [m.to, m.headers.subject])).toEqual([
      [['ann@customer.test'], 'Re: Hours'],
      [['ann@customer.test'], 'Re: Saturday'],
    ]);
  });

  it("a teammate's reply from the admin goes out as an e-mail in the thread", async () => {
    const { t, smtp, token, agent } = await start();
    await mailFromAnn({
      subject: 'Dogs',
      messageId: '<d1@customer.test>',
    });
    await smtp.waitFor(1);
    await allSent(t);
    const [conversation] = await sendExpect(t.app, token, 'GET', `/api/chat/conversations/${agent.id}`);
    const base = `/api/chat/conversations/${agent.id}/${conversation.id}`;
    await sendExpect(t.app, token, 'POST', `${base}/take`, {}, 200);
    await sendExpect(t.app, token, 'POST', `${base}/reply`, { message: 'Of course, dogs are welcome!' }, 201);
    const reply = await smtp.waitFor(2);
    expect(reply.to).toEqual(['ann@customer.test']);
    expect(reply.headers.subject).toBe('Re: Dogs');
    expect(reply.headers['in-reply-to']).toBe('<d1@customer.test>');
    expect(reply.body.trim()).toBe('Of course, dogs are welcome!');
  });

  it('one sender gets at most 10 answers a day: a forged From cannot make the agent a reflector', async () => {
    const { t, smtp } = await start();
    for (let i = 1; i <= 12; i++)
      await imap.append(
        'shop',
        rawMail({ from: 'victim@elsewhere.test', to: ADDRESS, subject: `Question ${i}`, text: 'When are you open?\n' }),
      );
    await smtp.waitFor(10);
    await allSent(t);
    // another sender is still answered, after them all
    await mailFromAnn({ subject: 'Hours' });
    const last = await smtp.waitFor(11);
    await allSent(t);
    expect(last.to).toEqual(['ann@customer.test']);
    expect(smtp.messages.filter((m) => m.to[0] === 'victim@elsewhere.test')).toHaveLength(10);
    const capped = t.database.sqlite.prepare(
      "SELECT count(*) AS n FROM channel_inbound WHERE error LIKE 'over the daily%'",
    );
    expect(capped.get()).toEqual({ n: 2 });
  });

  it('a server without IDLE: new mail is found by polling', { timeout: 60_000 }, async () => {
    const noIdle = await startImap({ users: ['shop'], idle: false });
    try {
      const { t, smtp, token, url } = await start({}, false);
      await sendExpect(t.app, token, 'PUT', url, { imap_url: noIdle.url('shop'), address: ADDRESS }, 200);
      await noIdle.append('shop', rawMail({ from: ANN, to: ADDRESS, subject: 'Hours', text: 'When are you open?\n' }));
      expect((await smtp.waitFor(1)).body).toMatch(/9 to 5/);
      await allSent(t);
    } finally {
      await noIdle.stop();
    }
  });

  it("the mailbox's own SMTP server sends its replies, with no SMTP_URL on the server (required then)", async () => {
    const own: TestSmtp = apps.before(await startSmtp());
    const { t, smtp, token, url } = await start({}, false, false);
    // with neither, the answers could not go out: said at once, nothing saved
    const noSmtp = await send(t.app, token, 'PUT', url, { imap_url: imap.url('other'), address: 'sales@shop.test' });
    expect([noSmtp.statusCode, noSmtp.json().detail]).toEqual([
      400,
      expect.stringMatching(/^smtp_url: this server has no SMTP settings/),
    ]);
    await sendExpect(
      t.app,
      token,
      'PUT',
      url,
      { imap_url: imap.url('other'), address: 'sales@shop.test', smtp_url: own.url },
      200,
    );
    await imap.append(
      'other',
      rawMail({ from: ANN, to: 'sales@shop.test', subject: 'Hours', text: 'When are you open?\n' }),
    );
    const answer = await own.waitFor(1);
    expect(answer.headers.from).toBe('Shop <sales@shop.test>');
    expect(answer.body).toMatch(/9 to 5/);
    await channelsIdle(t);
    expect(smtp.messages).toEqual([]);
  });
});
