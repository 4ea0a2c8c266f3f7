import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  auth,
  makeDataDir,
  ManualClock,
  multipartForm,
  PASSWORD,
  registerUser,
  useTestApps,
  type TestApp,
  send,
} from '../helpers/app.js';
import { withTimeout } from '../helpers/server-process.js';
import { freePort, type ReceivedMail, smtpUrl, startSmtp, type TestSmtp } from '../helpers/smtp.js';

/**
 * Lead e-mail alerts (docs/API.md "Leads": durable outbox, retried while
 * the mail server is down, subject names the agent, body holds name, phone and time) against a
 * real SMTP server on 127.0.0.1. Waiting is on the server's onData, never on a timer.
 */

type Json = Record<string, any>;

/** the queue polls once a second of real time; a delivery that needs a poll gets this long */
const DELIVERY_TIMEOUT_MS = 15_000;

const apps = useTestApps();

async function app(env: Record<string, string>, clock: ManualClock, dataDir?: string): Promise<TestApp> {
  const t = await apps.start({
    clock,
    env: { SMTP_FROM: 'alerts@chat-agent.test', ...env },
    ...(dataDir ? { dataDir } : {}),
  });
  return t;
}

async function smtp(port?: number): Promise<TestSmtp> {
  const s = await startSmtp(port);
  apps.after(s);
  return s;
}

const within = <T>(promise: Promise<T>, what: string, ms = DELIVERY_TIMEOUT_MS): Promise<T> =>
  withTimeout(promise, ms, what);

/** Whether mail is configured and how many of the account's messages wait (the admin UI's banner). */
async function mailStatus(t: TestApp, token: string): Promise<{ configured: boolean; pending: number }> {
  const res = await t.app.inject({ method: 'GET', url: '/api/system/status', headers: auth(token) });
  expect(res.statusCode).toBe(200);
  return res.json().mail;
}

/** An account and an agent with alerts on (set through PUT), unless `alertsTo` is null. */
/** The account is registered with the alert address as its own e-mail, which needs no confirmation. */
async function agentWithAlerts(
  t: TestApp,
  name: string,
  alertsTo: string | null,
): Promise<{ token: string; agent: Json }> {
  const { token } = await registerUser(t.app, alertsTo ? { email: alertsTo } : {});
  const created = await t.app.inject({ method: 'POST', url: '/api/chatbots', headers: auth(token), payload: { name } });
  expect(created.statusCode, created.body).toBe(201);
  let agent = created.json();
  if (alertsTo) {
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      email_alerts_enabled: true,
      email_alert_address: alertsTo,
    });
    expect(put.statusCode, put.body).toBe(200);
    agent = put.json();
    expect(agent).toMatchObject({ email_alerts_enabled: true, email_alert_address: alertsTo });
  }
  return { token, agent };
}

async function postLead(t: TestApp, agentId: string, body: Json): Promise<Json> {
  const res = await t.app.inject({ method: 'POST', url: `/api/public/lead/${agentId}`, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function listLeads(t: TestApp, token: string, agentId: string): Promise<Json[]> {
  const res = await t.app.inject({ method: 'GET', url: `/api/chatbot-leads/${agentId}`, headers: auth(token) });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** An alert to `to` alone, the agent named in its subject, each of `texts` in its body. */
function expectAlert(mail: ReceivedMail, to: string, agentName: string, texts: string[]) {
  expect(mail.to).toEqual([to]);
  expect(mail.subject).toContain(agentName);
  for (const text of texts) expect(mail.body).toContain(text);
}

/** Once the mail queue is done: nothing pending, one message at `server`, and `lead` the agent's only lead. */
async function expectOneAlertSent(t: TestApp, token: string, agentId: string, server: TestSmtp, lead: Json) {
  await t.app.mailJobs.idle();
  expect(await mailStatus(t, token)).toMatchObject({ pending: 0 });
  expect(server.messages).toHaveLength(1);
  expect(await listLeads(t, token, agentId)).toEqual([lead]);
}

function outboxRows(t: TestApp): Array<{ status: string; attempts: number; to_address: string }> {
  return t.database.sqlite
    .prepare('SELECT status, attempts, to_address FROM mail_outbox ORDER BY created_at, id')
    .all() as never;
}

describe('lead e-mail alerts', () => {
  it('a new widget lead sends one message to the alert address: subject names the agent, body has name, phone and time', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url }, clock);
    const { token, agent } = await agentWithAlerts(t, 'Acme Sales Bot', 'owner@acme.test');
    expect(await mailStatus(t, token)).toEqual({ configured: true, pending: 0 });

    clock.advance(5000);
    const lead = await postLead(t, agent.id, { name: 'Jane Doe', phone: '+1 555 0100' });
    const mail = await within(server.waitFor(1), 'the alert');

    expect(mail.to).toEqual(['owner@acme.test']);
    expect(mail.from).toBe('alerts@chat-agent.test');
    expect(mail.subject).toBe('New lead for Acme Sales Bot');
    expect(mail.body).toContain('Jane Doe');
    expect(mail.body).toContain('+1 555 0100');
    expect(mail.body).toContain(lead.created_at);
    expect(mail.headers.to).toContain('owner@acme.test');

    await t.app.mailJobs.idle();
    expect(await mailStatus(t, token)).toEqual({ configured: true, pending: 0 });
    expect(outboxRows(t)).toEqual([{ status: 'sent', attempts: 0, to_address: 'owner@acme.test' }]);
  });

  it('a deduplicated lead sends nothing twice', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url }, clock);
    const { token, agent } = await agentWithAlerts(t, 'Dedup Bot', 'dedup@acme.test');

    const first = await postLead(t, agent.id, { name: 'Jane Doe', phone: '555-0100' });
    await within(server.waitFor(1), 'the first alert');
    clock.advance(3000);
    const again = await postLead(t, agent.id, { name: 'Jane Doe', phone: '555-0100' });
    expect(again.id).toBe(first.id);
    clock.advance(3000);
    expect((await postLead(t, agent.id, { name: 'Jane Doe', phone: '555-0100' })).id).toBe(first.id);

    // a different lead afterwards is the next (and last) message: no duplicate came before it
    clock.advance(1000);
    await postLead(t, agent.id, { name: 'Jane Doe', phone: '555-0199' });
    const second = await within(server.waitFor(2), "the second lead's alert");
    expect(second.body).toContain('555-0199');
    await t.app.mailJobs.idle();
    expect(server.messages).toHaveLength(2);
    expect(server.messages[0]!.body).toContain('555-0100');
    expect(outboxRows(t)).toHaveLength(2);
    expect(await listLeads(t, token, agent.id)).toHaveLength(2);
  });

  it('an agent with alerts off sends nothing', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url }, clock);
    const quiet = await agentWithAlerts(t, 'Quiet Bot', null);
    expect(quiet.agent.email_alerts_enabled).toBe(false);
    const loud = await agentWithAlerts(t, 'Loud Bot', 'loud@acme.test');

    // alerts switched off again (the address stays) also means no mail
    const { token, agent: off } = await agentWithAlerts(t, 'Switched Off Bot', 'off@acme.test');
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${off.id}`, { email_alerts_enabled: false });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().email_alerts_enabled).toBe(false);

    await postLead(t, quiet.agent.id, { name: 'Quiet Lead', phone: '555-0001' });
    await postLead(t, off.id, { name: 'Off Lead', phone: '555-0002' });
    await postLead(t, loud.agent.id, { name: 'Loud Lead', phone: '555-0003' });
    await within(server.waitFor(1), "the alerts-on agent's alert");
    await t.app.mailJobs.idle();

    expect(server.messages).toHaveLength(1);
    expect(server.messages[0]!.to).toEqual(['loud@acme.test']);
    expect(server.messages[0]!.body).toContain('Loud Lead');
    expect(outboxRows(t)).toHaveLength(1);
    expect(await mailStatus(t, loud.token)).toMatchObject({ pending: 0 });
  });

  it('PUT email_alerts_enabled true without an address is 400 and changes nothing', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const t = await app({}, clock);
    const { token, agent } = await agentWithAlerts(t, 'No Address Bot', null);
    const put = (payload: Json) =>
      t.app.inject({ method: 'PUT', url: `/api/chatbots/${agent.id}`, headers: auth(token), payload });

    const bare = await put({ email_alerts_enabled: true });
    expect(bare.statusCode, bare.body).toBe(400);
    expect(bare.json().detail).toContain('email_alert_address');
    expect((await put({ email_alerts_enabled: true, email_alert_address: null })).statusCode).toBe(400);
    expect((await put({ email_alerts_enabled: true, email_alert_address: 'not-an-address' })).statusCode).toBe(400);
    const got = await t.app.inject({ method: 'GET', url: `/api/chatbots/${agent.id}`, headers: auth(token) });
    expect(got.json()).toMatchObject({ email_alerts_enabled: false, email_alert_address: null });

    // once on with an address, removing the address alone is refused too
    expect((await put({ email_alerts_enabled: true, email_alert_address: 'a@acme.test' })).statusCode).toBe(200);
    expect((await put({ email_alert_address: null })).statusCode).toBe(400);
    const after = await t.app.inject({ method: 'GET', url: `/api/chatbots/${agent.id}`, headers: auth(token) });
    expect(after.json()).toMatchObject({ email_alerts_enabled: true, email_alert_address: 'a@acme.test' });
  });
});

describe('alerts are never lost', () => {
  it('with the SMTP server down the lead is answered and listed at once; the alert goes out once the server is up', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const port = await freePort();
    const t = await app({ SMTP_URL: smtpUrl(port) }, clock);
    const { token, agent } = await agentWithAlerts(t, 'Patient Bot', 'patient@acme.test');

    const lead = await postLead(t, agent.id, { name: 'Jane Doe', phone: '555-0100' });
    expect(await listLeads(t, token, agent.id)).toEqual([lead]);
    // the first attempt has run and failed; the retry waits for the (manual) clock
    await t.app.mailJobs.idle();
    expect(outboxRows(t)).toEqual([{ status: 'pending', attempts: 1, to_address: 'patient@acme.test' }]);
    expect(await mailStatus(t, token)).toEqual({ configured: true, pending: 1 });

    const server = await smtp(port);
    const arrived = server.waitFor(1);
    clock.advance(2 * 60_000);
    const mail = await within(arrived, 'the retried alert');
    expectAlert(mail, 'patient@acme.test', 'Patient Bot', ['Jane Doe', '555-0100', lead.created_at]);

    await expectOneAlertSent(t, token, agent.id, server, lead);
  });

  it('a pending alert survives a restart and is delivered by the next process without any new lead', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const port = await freePort();
    const dataDir = makeDataDir();
    const env = { SMTP_URL: smtpUrl(port) };

    const first = await app(env, clock, dataDir);
    const { token, agent } = await agentWithAlerts(first, 'Restart Bot', 'restart@acme.test');
    const lead = await postLead(first, agent.id, { name: 'Jane Doe', phone: '555-0100' });
    await first.app.mailJobs.idle();
    expect(await mailStatus(first, token)).toMatchObject({ pending: 1 });
    await first.close();

    const server = await smtp(port);
    const arrived = server.waitFor(1);
    clock.advance(2 * 60_000);
    const second = await app(env, clock, dataDir);
    const mail = await within(arrived, 'the alert left by the previous process');
    expectAlert(mail, 'restart@acme.test', 'Restart Bot', ['Jane Doe', lead.created_at]);

    await expectOneAlertSent(second, token, agent.id, server, lead);
  });

  it('a mail server that accepts and then says nothing holds neither the answer nor the shutdown, and loses nothing', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    // a TCP server on the SMTP port that never greets
    const silent: net.Socket[] = [];
    let connected!: () => void;
    const connection = new Promise<void>((resolve) => (connected = resolve));
    const mute = net.createServer((socket) => {
      silent.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const port = (mute.address() as net.AddressInfo).port;
    const closeMute = async () => {
      for (const s of silent) s.destroy();
      await new Promise<void>((resolve) => mute.close(() => resolve()));
    };
    const dataDir = makeDataDir();
    const env = { SMTP_URL: smtpUrl(port) };
    try {
      const first = await app(env, clock, dataDir);
      const { token, agent } = await agentWithAlerts(first, 'Stuck Bot', 'stuck@acme.test');
      const lead = await postLead(first, agent.id, { name: 'Jane Doe', phone: '555-0100' });
      await within(connection, 'the send to connect', 5000);
      expect(await mailStatus(first, token)).toMatchObject({ pending: 1 });
      // the send is in flight; shutting down must not wait for nodemailer's greeting timeout (30 s)
      await within(first.close(), 'the app to close while a send hangs', 5000);
      await closeMute();

      const server = await smtp(port);
      const arrived = server.waitFor(1);
      const second = await app(env, clock, dataDir);
      const mail = await within(arrived, 'the interrupted alert');
      expect(mail.to).toEqual(['stuck@acme.test']);
      expect(mail.body).toContain('Jane Doe');
      await second.app.mailJobs.idle();
      expect(await mailStatus(second, token)).toMatchObject({ pending: 0 });
      expect(server.messages).toHaveLength(1);
      expect(await listLeads(second, token, agent.id)).toEqual([lead]);
    } finally {
      if (mute.listening) await closeMute();
    }
  });

  it('a permanent refusal (550 for the recipient) is recorded as rejected and not retried', async () => {
    let refused!: () => void;
    const refusal = new Promise<void>((resolve) => (refused = resolve));
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onRcptTo(_address, _session, callback) {
        const err = Object.assign(new Error('No such mailbox'), { responseCode: 550 });
        callback(err);
        refused();
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    try {
      const clock = new ManualClock();
      const t = await app({ SMTP_URL: smtpUrl(port) }, clock);
      const { token, agent } = await agentWithAlerts(t, 'Refusing Shop', 'nobody@example.com');
      await postLead(t, agent.id, { name: 'Ann', phone: '+1 555 0100' });
      await within(refusal, 'the refusal');
      await t.app.mailJobs.idle();
      expect(outboxRows(t)).toEqual([{ status: 'rejected', attempts: 1, to_address: 'nobody@example.com' }]);
      expect((await mailStatus(t, token)).pending).toBe(0);
      clock.advance(10 * 60_000); // no retry is due, however long we wait
      await t.app.mailJobs.idle();
      expect(outboxRows(t)[0]!.attempts).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('without SMTP_URL the lead is stored and its alert queued; it goes out once mail is configured', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const dataDir = makeDataDir();
    const first = await app({}, clock, dataDir);
    const { token, agent } = await agentWithAlerts(first, 'Unconfigured Bot', 'later@acme.test');
    expect(await mailStatus(first, token)).toEqual({ configured: false, pending: 0 });
    const lead = await postLead(first, agent.id, { name: 'Jane Doe', phone: '555-0100' });
    expect(await listLeads(first, token, agent.id)).toEqual([lead]);
    expect(await mailStatus(first, token)).toEqual({ configured: false, pending: 1 });
    await first.close();

    const server = await smtp();
    const arrived = server.waitFor(1);
    const second = await app({ SMTP_URL: server.url }, clock, dataDir);
    const mail = await within(arrived, 'the alert queued while mail was not configured');
    expect(mail.to).toEqual(['later@acme.test']);
    expect(mail.body).toContain('Jane Doe');
    await second.app.mailJobs.idle();
    expect(await mailStatus(second, token)).toEqual({ configured: true, pending: 0 });
  });

  it('a widget lead deleted through DELETE /api/leads/{id} takes its pending alert with it: it is never sent (issue 31 owner 8)', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const dataDir = makeDataDir();
    const first = await app({}, clock, dataDir);
    const { token, agent } = await agentWithAlerts(first, 'Deleting Bot', 'owner@acme.test');
    const gone = await postLead(first, agent.id, { name: 'Gone Person', phone: '555-0101' });
    const kept = await postLead(first, agent.id, { name: 'Kept Person', phone: '555-0102' });
    expect(await mailStatus(first, token)).toEqual({ configured: false, pending: 2 });
    const del = await first.app.inject({ method: 'DELETE', url: `/api/leads/${gone.id}`, headers: auth(token) });
    expect(del.statusCode, del.body).toBe(200);
    expect(await mailStatus(first, token)).toEqual({ configured: false, pending: 1 });
    await first.close();

    const server = await smtp();
    const arrived = server.waitFor(1);
    const second = await app({ SMTP_URL: server.url }, clock, dataDir);
    expect((await within(arrived, "the kept lead's alert")).body).toContain(kept.name);
    await second.app.mailJobs.idle();
    expect(server.messages).toHaveLength(1);
    expect(server.messages.map((m) => m.body).join('\n')).not.toContain('Gone Person');
    expect(outboxRows(second)).toEqual([{ status: 'sent', attempts: 0, to_address: 'owner@acme.test' }]);
  });
});

/**
 * With open registration anyone can type any address; mail goes only where its reader agreed
 * (issue 20.6). The account's own e-mail needs no confirmation (the tests above).
 */
describe('alerts go only to addresses that agreed to them', () => {
  async function confirmationLink(body: string): Promise<{ url: string; token: string }> {
    const match = /(https?:\/\/\S+\/alerts\/confirm\?token=([\w-]+))/.exec(body);
    expect(match, body).not.toBeNull();
    return { url: new URL(match![1]!).pathname + new URL(match![1]!).search, token: match![2]! };
  }

  async function alertState(t: TestApp, token: string, agentId: string): Promise<Json> {
    const res = await send(t.app, token, 'GET', `/api/chatbots/${agentId}/alert-address`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  async function postConfirm(t: TestApp, token: string) {
    const form = await multipartForm({ token });
    return t.app.inject({
      method: 'POST',
      url: '/alerts/confirm',
      payload: form.payload,
      headers: { ...form.headers, accept: 'text/html' },
    });
  }

  it("another address gets one fixed-text confirmation, never a stranger's words; the held alerts go out once it is confirmed", async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url }, clock);
    const { token } = await registerUser(t.app, { email: 'spammer@evil.test' });
    const created = await send(t.app, token, 'POST', '/api/chatbots', { name: 'CHEAP PILLS at evil.test' });
    const agent = created.json();
    const put = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      email_alerts_enabled: true,
      email_alert_address: 'Victim@Example.test',
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(await alertState(t, token, agent.id)).toEqual({
      address: 'Victim@Example.test',
      verified: false,
      confirmation_sent_at: null,
    });

    const lead = await postLead(t, agent.id, { name: 'Visit evil.test now', phone: '555-0100' });
    const confirmation = await within(server.waitFor(1), 'the confirmation');
    expect(confirmation.to).toEqual(['victim@example.test']);
    expect(confirmation.subject).toBe('Confirm lead alerts to this address');
    for (const stranger of ['evil', 'PILLS', 'Visit']) {
      expect(confirmation.subject).not.toContain(stranger);
      expect(confirmation.body).not.toContain(stranger);
    }
    expect((await alertState(t, token, agent.id)).confirmation_sent_at).toBe(clock.now().toISOString());

    // more leads: still held, and no second confirmation
    clock.advance(20_000);
    await postLead(t, agent.id, { name: 'Second', phone: '555-0101' });
    await t.app.mailJobs.idle();
    expect(server.messages).toHaveLength(1);
    expect(outboxRows(t).filter((r) => r.status === 'held')).toHaveLength(2);
    // and the owner cannot make it send another within the hour
    const again = await send(t.app, token, 'POST', `/api/chatbots/${agent.id}/alert-address/confirmation`);
    expect(again.statusCode, again.body).toBe(429);
    expect(again.json().detail).toContain('an hour');

    // the link opens a page that asks; opening it confirms nothing (mail scanners follow links)
    const link = await confirmationLink(confirmation.body);
    const page = await t.app.inject({ method: 'GET', url: link.url, headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('victim@example.test');
    expect(page.body).toContain('<form method="post"');
    expect((await alertState(t, token, agent.id)).verified).toBe(false);

    const confirmed = await postConfirm(t, link.token);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.body).toContain('Lead alerts will be sent to victim@example.test');
    const released = await within(server.waitFor(3), 'the two held alerts');
    await t.app.mailJobs.idle();
    const alerts = server.messages.slice(1);
    expect(alerts.map((m) => m.subject)).toEqual([
      'New lead for CHEAP PILLS at evil.test',
      'New lead for CHEAP PILLS at evil.test',
    ]);
    expect(alerts.map((m) => m.body).join('\n')).toContain(lead.name);
    expect(released.to.map((a) => a.toLowerCase())).toEqual(['victim@example.test']);
    expect(await alertState(t, token, agent.id)).toEqual({
      address: 'Victim@Example.test',
      verified: true,
      confirmation_sent_at: null,
    });

    // from now on alerts go straight out; the used link is dead
    clock.advance(20_000);
    await postLead(t, agent.id, { name: 'Third', phone: '555-0102' });
    expect((await within(server.waitFor(4), 'a direct alert')).body).toContain('Third');
    expect((await postConfirm(t, link.token)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: link.url })).statusCode).toBe(404);
  });

  it('confirmations are capped: one an hour per address, five a day per account; links expire after 7 days', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url }, clock);
    const { token: firstToken, email } = await registerUser(t.app);
    let token = firstToken;
    const other = await registerUser(t.app);
    const newAgent = async (): Promise<string> =>
      (
        await t.app.inject({ method: 'POST', url: '/api/chatbots', headers: auth(token), payload: { name: 'Bot' } })
      ).json().id;
    const alertTo = async (agentId: string, address: string): Promise<string> => {
      const put = await send(t.app, token, 'PUT', `/api/chatbots/${agentId}`, {
        email_alerts_enabled: true,
        email_alert_address: address,
      });
      expect(put.statusCode, put.body).toBe(200);
      return agentId;
    };
    const ask = (agentId: string, who = token) =>
      t.app.inject({ method: 'POST', url: `/api/chatbots/${agentId}/alert-address/confirmation`, headers: auth(who) });

    // nothing to confirm: no address (400), the account's own address (verified, nothing sent)
    expect((await ask(await newAgent())).statusCode).toBe(400);
    const own = await ask(await alertTo(await newAgent(), email.toUpperCase()));
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json()).toMatchObject({ verified: true });

    const agent = await newAgent();
    await alertTo(agent, 'one@example.test');
    expect((await ask(agent, other.token)).statusCode).toBe(404); // another account's agent
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/chatbots/${agent}/alert-address`, headers: auth(other.token) }))
        .statusCode,
    ).toBe(404);
    const sent = await ask(agent);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toEqual({
      address: 'one@example.test',
      verified: false,
      confirmation_sent_at: clock.now().toISOString(),
    });
    const firstMail = await within(server.waitFor(1), 'the first confirmation');
    for (const n of [2, 3, 4, 5])
      expect((await ask(await alertTo(agent, `addr${n}@example.test`))).statusCode).toBe(200);
    const sixth = await ask(await alertTo(agent, 'six@example.test'));
    expect(sixth.statusCode, sixth.body).toBe(429);
    expect(sixth.json().detail).toContain('24 hours');
    await within(server.waitFor(5), 'five confirmations');
    await t.app.mailJobs.idle();
    expect(server.messages).toHaveLength(5);

    // a day later the allowance is back; the first link has not expired yet but will
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    // sessions end after a day without use: sign in again after each jump of the clock
    const signIn = async () =>
      (token = (
        await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } })
      ).json().access_token);
    await signIn();
    expect((await ask(agent)).statusCode).toBe(200);
    const { url, token: linkToken } = await confirmationLink(firstMail.body);
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    clock.advance(6 * 24 * 60 * 60 * 1000);
    await signIn();
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    expect((await postConfirm(t, linkToken)).statusCode).toBe(404);
    expect((await postConfirm(t, 'made-up')).statusCode).toBe(404);
    await alertTo(agent, 'one@example.test');
    expect((await alertState(t, token, agent)).verified).toBe(false);
  });
});
