import { describe, expect, it } from 'vitest';
import { readMail } from '../../src/providers/channels/email-message.js';

// How one raw e-mail becomes the channel's message (mailparser + email-reply-parser), and which
// mail is never answered: loops and noise.

const OWN = 'help@shop.example';

function raw(headers: Record<string, string>, body: string, contentType = 'text/plain; charset=utf-8'): Buffer {
  const all = {
    From: 'Ann Visitor <ann@customer.example>',
    To: OWN,
    Subject: 'Opening hours',
    Date: 'Sat, 28 Nov 2026 10:00:00 +0000',
    'Message-ID': '<m1@customer.example>',
    'MIME-Version': '1.0',
    'Content-Type': contentType,
    ...headers,
  };
  const head = Object.entries(all)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return Buffer.from(`${head}\r\n\r\n${body.replace(/\n/g, '\r\n')}`);
}

async function message(source: Buffer) {
  const read = await readMail(source, OWN, '1.7');
  if (!('message' in read)) throw new Error(`ignored: ${read.ignored}`);
  return read.message;
}

describe('reading an e-mail', () => {
  it('a first message: the subject is part of the question; the sender is the chat; the Message-ID keys it', async () => {
    const m = await message(raw({}, 'Are you open on Sundays?\n'));
    expect(m.chatId).toBe('ann@customer.example');
    expect(m.userName).toBe('Ann Visitor');
    expect(m.text).toBe('Opening hours\n\nAre you open on Sundays?');
    expect(m.externalId).toMatch(/^mid:[0-9a-f]{64}$/);
    expect(m.thread).toEqual({
      messageId: '<m1@customer.example>',
      references: ['<m1@customer.example>'],
      subject: 'Opening hours',
    });
    // the same Message-ID is the same key (a redelivered message is kept once)
    expect((await message(raw({}, 'again'))).externalId).toBe(m.externalId);
  });

  it('a reply: the quoted answer and the signature are left out; the thread carries the References', async () => {
    const body = [
      'Thanks! And on Saturdays?',
      '',
      '--',
      'Ann Visitor',
      'Customer Inc.',
      '',
      'On Sat, 28 Nov 2026 at 10:01, Shop <help@shop.example> wrote:',
      '> We are closed on Sundays.',
      '> Anything else?',
    ].join('\n');
    const m = await message(
      raw(
        {
          Subject: 'Re: Opening hours',
          'Message-ID': '<m2@customer.example>',
          'In-Reply-To': '<a1@shop.example>',
          References: '<m1@customer.example> <a1@shop.example>',
        },
        body,
      ),
    );
    expect(m.text).toBe('Thanks! And on Saturdays?');
    expect(m.thread).toEqual({
      messageId: '<m2@customer.example>',
      references: ['<m1@customer.example>', '<a1@shop.example>', '<m2@customer.example>'],
      subject: 'Opening hours',
    });
  });

  it('HTML-only mail is read as text', async () => {
    const m = await message(raw({}, '<p>Do you <b>deliver</b> to Leeds?</p>', 'text/html; charset=utf-8'));
    expect(m.text).toContain('Do you deliver to Leeds?');
  });

  it('a message without a Message-ID gets a key from the mailbox (UIDVALIDITY and UID)', async () => {
    const a = await message(raw({ 'Message-ID': '' }, 'hello'));
    expect(a.thread?.messageId).toBe('<1.7@chat-agent.invalid>');
  });

  it.each([
    ['Auto-Submitted: auto-replied', { 'Auto-Submitted': 'auto-replied' }],
    ['Auto-Submitted: auto-generated', { 'Auto-Submitted': 'auto-generated' }],
    ['a vacation program (X-Autoreply)', { 'X-Autoreply': 'yes' }],
    ['Outlook asking for no automatic answers', { 'X-Auto-Response-Suppress': 'All' }],
    ['Precedence: bulk', { Precedence: 'bulk' }],
    ['a mailing list (List-Id)', { 'List-Id': 'News <news.customer.example>' }],
    ['a mailing list (List-Unsubscribe)', { 'List-Unsubscribe': '<mailto:leave@customer.example>' }],
    ['a bounce (empty Return-Path)', { 'Return-Path': '<>' }],
    ['a bounce (MAILER-DAEMON)', { From: 'Mail Delivery System <MAILER-DAEMON@customer.example>' }],
    ['our own address', { From: `Shop <${OWN.toUpperCase()}>` }],
    ['no sender', { From: '' }],
  ])('not answered: %s', async (_name, headers) => {
    const read = await readMail(raw(headers, 'I am out of the office until Monday.'), OWN, '1.8');
    expect(read).toHaveProperty('ignored');
  });

  it('a delivery report (multipart/report) is not answered', async () => {
    const report = raw(
      { From: 'postmaster@relay.example' },
      '--b\nContent-Type: text/plain\n\nDelivery failed.\n--b--\n',
      'multipart/report; report-type=delivery-status; boundary="b"',
    );
    expect(await readMail(report, OWN, '1.9')).toHaveProperty('ignored');
  });

  it('Auto-Submitted: no is a person writing', async () => {
    expect((await message(raw({ 'Auto-Submitted': 'no' }, 'Do you ship abroad?'))).text).toContain(
      'Do you ship abroad?',
    );
  });
});
