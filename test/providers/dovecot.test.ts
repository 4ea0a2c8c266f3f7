import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { ExistsEvent } from 'imapflow';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMail, startImap, type TestImap } from '../helpers/dovecot.js';

// The IMAP harness: a real Dovecot, driven through imapflow as the e-mail channel will use it.

let imap: TestImap;

beforeAll(async () => {
  imap = await startImap({ users: ['alice', 'bob', 'support@example.test'] });
}, 30_000);

afterAll(async () => {
  await imap?.stop();
}, 20_000);

const mail = (n: number, extra: Partial<Parameters<typeof rawMail>[0]> = {}) =>
  rawMail({
    from: 'Carol Customer <carol@example.test>',
    to: 'support@example.test',
    subject: `Question ${n}`,
    text: `Hello, this is question ${n}.`,
    messageId: `<q${n}@example.test>`,
    ...extra,
  });

/** the process ids whose process group is `pgid` */
function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // pid (comm) state ppid pgrp ...: comm may hold spaces, so count from its closing parenthesis
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('Dovecot test IMAP server', () => {
  it('keeps appended mail in the INBOX of its user, where a client logging in from url() finds it', async () => {
    await imap.append('support@example.test', mail(1));
    await imap.append('support@example.test', Buffer.from(mail(2, { inReplyTo: '<q1@example.test>' })), ['\\Seen']);

    const url = new URL(imap.url('support@example.test'));
    expect(url.protocol).toBe('imap:');
    expect(url.host).toBe(`127.0.0.1:${imap.port}`);
    expect(url.username).toBe('support%40example.test');
    expect(decodeURIComponent(url.password)).toBe(imap.users['support@example.test']);
    expect(url.password).not.toMatch(/[@/ ]/);

    const client = await imap.connect(decodeURIComponent(url.username), { password: decodeURIComponent(url.password) });
    try {
      const inbox = await client.mailboxOpen('INBOX');
      expect(inbox.exists).toBe(2);
      const subjects = (await client.fetchAll('1:*', { envelope: true })).map((m) => m.envelope?.subject);
      expect(subjects).toEqual(['Question 1', 'Question 2']);
    } finally {
      await client.logout();
    }

    expect(await imap.messages('support@example.test')).toEqual([
      {
        uid: 1,
        flags: [],
        subject: 'Question 1',
        messageId: '<q1@example.test>',
        inReplyTo: undefined,
        from: 'carol@example.test',
      },
      {
        uid: 2,
        flags: ['\\Seen'],
        subject: 'Question 2',
        messageId: '<q2@example.test>',
        inReplyTo: '<q1@example.test>',
        from: 'carol@example.test',
      },
    ]);
    expect(await imap.messages('bob')).toEqual([]);
  });

  it('refuses a wrong password, and lets the right one in at once after it', async () => {
    const error = await imap.connect('alice', { password: 'not-the-password' }).then(
      () => undefined,
      (e: unknown) => e as { authenticationFailed?: boolean },
    );
    expect(error?.authenticationFailed).toBe(true);
    await expect(imap.connect('alice', { password: 'another-guess' })).rejects.toMatchObject({
      authenticationFailed: true,
    });
    await expect(imap.connect('nobody-here', { password: 'x' })).rejects.toMatchObject({ authenticationFailed: true });

    // with Dovecot's defaults, three failures from 127.0.0.1 hold the next login 15 s (2 s doubled a
    // failure, at most 15) before its password is even checked; well under a second here
    const started = Date.now();
    const client = await imap.connect('alice');
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.logout();
  });

  it('advertises IDLE, and tells an idling client of a new message as it is appended', async () => {
    const client = await imap.connect('bob');
    try {
      expect(client.capabilities.has('IDLE')).toBe(true);
      await client.mailboxOpen('INBOX');
      const arrived = new Promise<ExistsEvent>((resolve) => client.on('exists', resolve));
      const idling = client.idle();
      await imap.append('bob', mail(3));
      expect(await arrived).toMatchObject({ path: 'INBOX', count: 1, prevCount: 0 });
      // a command ends the IDLE
      await client.noop();
      await idling;
    } finally {
      await client.logout();
    }
  });

  it('keeps a message as rawMail wrote it: encoded headers and body, extra headers', async () => {
    const raw = rawMail({
      from: 'Zoë Ünal <zoe@example.test>',
      to: 'alice@example.test',
      subject: 'Re: Größe der Bestellung – noch offen?',
      text: `Grüße!\nA line with = and trailing space \n${'long '.repeat(40)}`,
      messageId: '<reply-1@example.test>',
      inReplyTo: '<q1@example.test>',
      references: ['<q0@example.test>', '<q1@example.test>'],
      headers: { 'Auto-Submitted': 'auto-replied', 'List-Id': '<news.example.test>', 'MIME-Version': null },
    });
    expect(raw).toMatch(/^Date: .+\r\n/);
    expect(raw.split('\r\n').every((line) => line.length <= 78 || !/[^\x20-\x7e]/.test(line))).toBe(true);
    expect(raw).not.toMatch(/(^|[^\r])\n/);
    expect(raw).not.toMatch(/^MIME-Version/m);

    await imap.append('alice', raw);
    const client = await imap.connect('alice');
    try {
      await client.mailboxOpen('INBOX');
      const fetched = await client.fetchOne('*', { source: true });
      const parsed = await simpleParser(fetched ? fetched.source! : Buffer.alloc(0));
      expect(parsed.subject).toBe('Re: Größe der Bestellung – noch offen?');
      expect(parsed.from?.value[0]).toEqual({ name: 'Zoë Ünal', address: 'zoe@example.test' });
      expect(parsed.text).toBe(`Grüße!\nA line with = and trailing space \n${'long '.repeat(40)}`);
      expect(parsed.messageId).toBe('<reply-1@example.test>');
      expect(parsed.inReplyTo).toBe('<q1@example.test>');
      expect(parsed.references).toEqual(['<q0@example.test>', '<q1@example.test>']);
      expect(parsed.headers.get('auto-submitted')).toBe('auto-replied');
      expect(parsed.headerLines.find((h) => h.key === 'list-id')?.line).toBe('List-Id: <news.example.test>');
      expect(parsed.date?.getTime()).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      await client.logout();
    }
  });
});

describe('Dovecot without IDLE', () => {
  let plain: TestImap;
  beforeAll(async () => {
    plain = await startImap({ idle: false });
  }, 30_000);
  afterAll(async () => {
    await plain?.stop();
  }, 20_000);

  it('leaves IDLE out of its capabilities, and still takes mail', async () => {
    const client = await plain.connect('alice');
    try {
      expect(client.capabilities.has('IDLE')).toBe(false);
      expect(client.capabilities.has('UIDPLUS')).toBe(true);
    } finally {
      await client.logout();
    }
    await plain.append('alice', mail(4));
    // no session has selected the INBOX yet: the message is \Recent, which messages() leaves out
    expect(await plain.messages('alice')).toMatchObject([{ uid: 1, flags: [], subject: 'Question 4' }]);
  });
});

describe('stop()', () => {
  it('ends every Dovecot process and removes the temp dir', async () => {
    const other = await startImap({ users: ['dave'] });
    const client = await other.connect('dave');
    client.on('error', () => undefined);
    expect(groupMembers(other.pid).length).toBeGreaterThan(1);
    await other.stop();
    expect(groupMembers(other.pid)).toEqual([]);
    expect(() => process.kill(other.pid, 0)).toThrow(/ESRCH/);
    expect(existsSync(other.dir)).toBe(false);
    client.close();
  }, 30_000);
});
