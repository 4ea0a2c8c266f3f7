import { describe, expect, it } from 'vitest';
import {
  ACTIONS_KEY,
  addAction,
  ask,
  bookingAction,
  call,
  Endpoint,
  runsOf,
  script,
  settle,
} from '../helpers/actions.js';
import { accountWithAgent, ManualClock, sendExpect, useTestApps } from '../helpers/app.js';
import { chatRequests, providerSetup } from '../helpers/chat.js';
import { startSmtp } from '../helpers/smtp.js';

// Booking a time (issue 35): the owner's calendar feed served on 127.0.0.1, the agent's office
// hours, the model calling the booking tool, the visitor's pick; the lead, the invitation mail
// (a real SMTP server) and the webhooks that follow.

type Json = Record<string, any>;

const KEY = ACTIONS_KEY;
const apps = useTestApps();

function feed(...busy: Array<[string, string]>): string {
  const events = busy.map(([start, end], i) =>
    [
      'BEGIN:VEVENT',
      `UID:busy-${i}`,
      'DTSTAMP:20260101T000000Z',
      `DTSTART:${start}`,
      `DTEND:${end}`,
      'END:VEVENT',
    ].join('\r\n'),
  );
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//actions//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}

// Monday 2 March 2026, 07:00 UTC (08:00 in Berlin, UTC+1 until 29 March)
const NOW = '2026-03-02T07:00:00.000Z';
const HOURS = {
  time_zone: 'Europe/Berlin',
  days: { mon: [{ from: '09:00', to: '12:00' }], tue: [{ from: '09:00', to: '12:00' }] },
};
// Mon 10:00-11:00 Berlin, and Tue 09:30-10:15 Berlin (which blocks Tue 09-10 and 10-11)
const BUSY: Array<[string, string]> = [
  ['20260302T090000Z', '20260302T100000Z'],
  ['20260303T083000Z', '20260303T091500Z'],
];

async function setUp() {
  const clock = new ManualClock(NOW);
  const ep = apps.before(await new Endpoint().up());
  let calendar = feed(...BUSY);
  ep.respond = (hit) =>
    hit.path === '/cal.ics' ? { type: 'text/calendar', body: calendar } : { status: 200, body: 'ok' };
  const smtp = apps.after(await startSmtp());
  const { f, t, token, agent } = await providerSetup(
    apps,
    'openai',
    KEY,
    { name: 'Studio', office_hours: HOURS },
    {
      clock,
      env: { ALLOW_PRIVATE_URLS: 'true', SMTP_URL: smtp.url, SMTP_FROM: 'bookings@chat-agent.test' },
      behaviour: { reply: script(call('book_call'), 'Anything else?') },
    },
  );
  const action = await addAction(t, token, agent.id, bookingAction(ep));
  const hook = await sendExpect(
    t.app,
    token,
    'POST',
    '/api/webhooks',
    { url: `${ep.url}/hooks`, events: ['action.run', 'booking.created'] },
    201,
  );
  return {
    clock,
    ep,
    smtp,
    f,
    t,
    token,
    agent,
    action,
    hook,
    setBusy: (...busy: Array<[string, string]>) => {
      calendar = feed(...busy);
    },
  };
}

const berlin = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  }).format(new Date(iso));

describe('booking a time', () => {
  it('the model calls the booking tool: free slots within office hours, none overlapping busy times', async () => {
    const { t, agent, ep } = await setUp();
    const answer = await ask(t, agent.id, 's-1', 'Can I book a call?');
    expect(answer.message).toBe('Please pick a time below and confirm it.');
    const card = answer.action;
    expect(card).toMatchObject({ type: 'booking', action_name: 'book_call', time_zone: 'Europe/Berlin' });
    expect(card.needs_email).toBe(true);
    expect(card.sends).toBeNull();
    expect(card.slots).toEqual([
      { start: '2026-03-02T08:00:00.000Z', end: '2026-03-02T09:00:00.000Z' },
      { start: '2026-03-02T10:00:00.000Z', end: '2026-03-02T11:00:00.000Z' },
      { start: '2026-03-03T10:00:00.000Z', end: '2026-03-03T11:00:00.000Z' },
    ]);
    for (const slot of card.slots as Json[]) {
      expect(berlin(slot.start)).toMatch(/^(Mon|Tue) (09|10|11):00$/);
      for (const [s, e] of BUSY) {
        const busyStart = Date.parse(s.replace(/(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/, '$1-$2-$3T$4:$5:$6Z'));
        const busyEnd = Date.parse(e.replace(/(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/, '$1-$2-$3T$4:$5:$6Z'));
        expect(Date.parse(slot.start) < busyEnd && Date.parse(slot.end) > busyStart, slot.start).toBe(false);
      }
    }
    expect(ep.hits.map((h) => h.path)).toEqual(['/cal.ics']);
  });

  it('a taken or invalid start says it is no longer free and the card stays usable; the pick books it', async () => {
    const { t, token, agent, ep, smtp, hook, setBusy } = await setUp();
    const answer = await ask(t, agent.id, 's-1', 'Can I book a call?');
    const runId = answer.action.run_id as string;
    const confirm = (body: Json) => settle(t, agent.id, runId, 'confirm', { session_id: 's-1', ...body });

    for (const start of ['2026-03-02T09:00:00.000Z', 'tomorrow', '2026-03-02T08:30:00.000Z']) {
      const res = await confirm({ start, email: 'ann@example.com' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        message: 'That time is no longer free; please pick another.',
        run: { status: 'awaiting_confirmation' },
      });
    }
    // the first slot became busy after the card was shown
    setBusy(...BUSY, ['20260302T080000Z', '20260302T083000Z']);
    const taken = await confirm({ start: answer.action.slots[0].start, email: 'ann@example.com' });
    expect(taken.json().message).toBe('That time is no longer free; please pick another.');
    const noEmail = await confirm({ start: answer.action.slots[1].start });
    expect(noEmail.json()).toMatchObject({
      message: 'An e-mail address is needed for the invitation.',
      run: { status: 'awaiting_confirmation' },
    });

    const booked = await confirm({ start: '2026-03-02T10:00:00.000Z', email: 'ann@example.com', name: 'Ann' });
    expect(booked.json()).toMatchObject({
      message: 'Booked: Mon 2 Mar, 11:00-12:00 (Europe/Berlin). An invitation is on its way to ann@example.com.',
      run: { id: runId, status: 'succeeded' },
    });
    const again = await confirm({ start: '2026-03-02T10:00:00.000Z', email: 'ann@example.com' });
    expect(again.json()).toMatchObject({ message: 'This was done already.', run: { status: 'succeeded' } });

    // the lead, linked to the conversation, with the e-mail address
    const leads = await sendExpect(t.app, token, 'GET', `/api/chatbot-leads/${agent.id}`);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({
      name: 'Ann',
      email: 'ann@example.com',
      session_id: 's-1',
      conversation_id: answer.conversation_id,
    });

    // the invitation: an e-mail with the .ics as text/calendar
    const outbox = t.database.sqlite
      .prepare("select to_address, ics from mail_outbox where kind = 'booking_invitation'")
      .all() as Json[];
    expect(outbox).toHaveLength(1);
    expect(outbox[0]!.to_address).toBe('ann@example.com');
    expect(outbox[0]!.ics).toContain('METHOD:REQUEST');
    await t.app.mailJobs.idle();
    const mail = await smtp.waitFor(1);
    expect(mail.to).toEqual(['ann@example.com']);
    expect(mail.subject).toBe('Booked: Mon 2 Mar, 11:00-12:00 (Europe/Berlin)');
    expect(mail.raw).toMatch(/content-type: text\/calendar/i);

    // the webhooks: action.run and booking.created
    await t.app.webhookJobs.idle();
    const hooks = ep.hits.filter((h) => h.path === '/hooks').map((h) => JSON.parse(h.body));
    expect(hooks.map((h) => h.event).sort()).toEqual(['action.run', 'booking.created']);
    const created = hooks.find((h) => h.event === 'booking.created')!;
    expect(created.data).toMatchObject({
      chatbot_id: agent.id,
      conversation_id: answer.conversation_id,
      booking: {
        run_id: runId,
        action_name: 'book_call',
        start: '2026-03-02T10:00:00.000Z',
        end: '2026-03-02T11:00:00.000Z',
        lead_id: leads[0].id,
        email: 'ann@example.com',
        name: 'Ann',
      },
    });
    const run = hooks.find((h) => h.event === 'action.run')!;
    expect(run.data.run).toMatchObject({ id: runId, type: 'booking', status: 'succeeded' });
    expect(hook.secret).toMatch(/^whsec_/);

    expect(await runsOf(t, token, agent.id, answer.conversation_id)).toMatchObject([
      { action_type: 'booking', status: 'succeeded', outcome: expect.stringContaining('ann@example.com') },
    ]);
  });

  it('a calendar feed that cannot be read: a clear failure, no card, the conversation goes on', async () => {
    const { t, token, agent, ep, f } = await setUp();
    ep.respond = (hit) => (hit.path === '/cal.ics' ? { status: 404, body: 'gone' } : { body: 'ok' });
    const answer = await ask(t, agent.id, 's-1', 'Can I book a call?');
    expect(answer.action).toBeNull();
    expect(answer.message).toBe('Anything else?');
    const told = JSON.stringify(chatRequests(f)[1]!.body);
    expect(told).toContain('The calendar could not be read (The calendar feed answered HTTP 404');
    const runs = await runsOf(t, token, agent.id, answer.conversation_id);
    expect(runs).toMatchObject([{ action_type: 'booking', status: 'failed' }]);
    expect(runs[0]!.outcome).toMatch(/^The calendar could not be read \(.*\); no time can be booked now\.$/);
    expect(runs[0]!.outcome).not.toMatch(/\.\)/);
  });

  it('without a provider key: the booking button shows the card, and the pick books it', async () => {
    const clock = new ManualClock(NOW);
    const ep = apps.before(await new Endpoint().up());
    ep.respond = () => ({ type: 'text/calendar', body: feed(...BUSY) });
    const t = await apps.start({ clock, env: { ALLOW_PRIVATE_URLS: 'true' } });
    const { token, agent } = await accountWithAgent(t.app, { name: 'Studio', office_hours: HOURS });
    const action = await addAction(t, token, agent.id, bookingAction(ep));
    const listed = await sendExpect(t.app, null, 'GET', `/api/public/chat/${agent.id}/actions`);
    expect(listed).toMatchObject({ buttons: true, actions: [{ id: action.id, type: 'booking', parameters: [] }] });
    const started = await sendExpect(t.app, null, 'POST', `/api/public/chat/${agent.id}/actions/${action.id}/start`, {
      session_id: 'b-1',
    });
    expect(started.message).toBe('Please pick a time below and confirm it.');
    expect(started.action.slots.map((s: Json) => s.start)).toEqual([
      '2026-03-02T08:00:00.000Z',
      '2026-03-02T10:00:00.000Z',
      '2026-03-03T10:00:00.000Z',
    ]);
    const booked = await settle(t, agent.id, started.action.run_id, 'confirm', {
      session_id: 'b-1',
      start: '2026-03-03T10:00:00.000Z',
      email: 'bo@example.com',
    });
    expect(booked.json()).toMatchObject({
      message: 'Booked: Tue 3 Mar, 11:00-12:00 (Europe/Berlin). An invitation is on its way to bo@example.com.',
      run: { status: 'succeeded' },
    });
    const leads = await sendExpect(t.app, token, 'GET', `/api/chatbot-leads/${agent.id}`);
    expect(leads).toMatchObject([{ name: 'bo@example.com', email: 'bo@example.com', phone: '', session_id: 'b-1' }]);
  });
});
