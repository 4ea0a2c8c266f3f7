import { describe, expect, it } from 'vitest';
import {
  handoffAvailability,
  instantOfWallTime,
  isOpenAt,
  nextOpening,
  type OfficeHours,
} from '../../src/modules/agents/office-hours.js';
import {
  accountWithAgent,
  createAgent,
  ManualClock,
  registerUser,
  say,
  send,
  sendExpect,
  type TestApp,
  useTestApps,
} from '../helpers/app.js';
import { listenOnLoopback } from '../helpers/browser.js';
import { takeSseEvents } from '../helpers/chat.js';
import { WEEKDAY_HOURS } from '../helpers/office-hours.js';
import { joinOperator, visitorEscalates } from '../helpers/team.js';

/**
 * Office hours and availability (issue 34 part 4, docs/API-NOTES.md "Office hours and
 * availability"): open or closed in the agent's time zone (DST and midnight included), the next
 * opening, the field's validation, each person's online/away, the public info's `handoff`, and an
 * escalation nobody can take: answered at once with the next opening, the stream says so without
 * waiting, and the contact left is a lead linked to the conversation with its alert and event.
 */
const apps = useTestApps();

const closedDays = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
const hours = (zone: string, days: Partial<OfficeHours['days']>): OfficeHours => ({
  time_zone: zone,
  days: { ...closedDays, ...days },
});
const at = (iso: string) => Date.parse(iso);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

describe('open or closed, and the next opening, in the time zone', () => {
  const berlin = hours('Europe/Berlin', { mon: [{ from: '09:00', to: '17:00' }] });

  it('reads the wall clock of the zone (winter +1, summer +2)', () => {
    // Monday 2 March 2026, CET
    expect(isOpenAt(berlin, at('2026-03-02T07:59:00Z'))).toBe(false);
    expect(isOpenAt(berlin, at('2026-03-02T08:00:00Z'))).toBe(true);
    expect(isOpenAt(berlin, at('2026-03-02T15:59:00Z'))).toBe(true);
    expect(isOpenAt(berlin, at('2026-03-02T16:00:00Z'))).toBe(false);
    // Monday 6 April 2026, CEST: 09:00 local is 07:00 UTC
    expect(isOpenAt(berlin, at('2026-04-06T07:00:00Z'))).toBe(true);
    expect(isOpenAt(berlin, at('2026-04-06T06:59:00Z'))).toBe(false);
    const ny = hours('America/New_York', { tue: [{ from: '09:00', to: '10:00' }] });
    expect(isOpenAt(ny, at('2026-03-03T14:30:00Z'))).toBe(true); // 09:30 EST
    expect(isOpenAt(ny, at('2026-03-03T09:30:00Z'))).toBe(false); // 04:30 EST
  });

  it('the next opening is the next range start, a week ahead at most', () => {
    expect(iso(nextOpening(berlin, at('2026-03-02T06:00:00Z')))).toBe('2026-03-02T08:00:00.000Z');
    // after Monday's hours: next Monday
    expect(iso(nextOpening(berlin, at('2026-03-02T16:00:00Z')))).toBe('2026-03-09T08:00:00.000Z');
    // the next Monday is after the clocks went forward (29 March): 09:00 CEST
    expect(iso(nextOpening(berlin, at('2026-03-27T12:00:00Z')))).toBe('2026-03-30T07:00:00.000Z');
    expect(nextOpening(hours('UTC', {}), at('2026-03-02T06:00:00Z'))).toBeNull();
  });

  it('the day the clocks go forward: a start in the skipped hour opens when the clocks have jumped', () => {
    // Sunday 29 March 2026: 02:00 CET becomes 03:00 CEST (01:00 UTC)
    const sunday = hours('Europe/Berlin', { sun: [{ from: '02:30', to: '04:00' }] });
    expect(iso(instantOfWallTime('Europe/Berlin', Date.UTC(2026, 2, 29, 2, 30)))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(nextOpening(sunday, at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
    expect(isOpenAt(sunday, at('2026-03-29T00:59:00Z'))).toBe(false); // 01:59 CET
    expect(isOpenAt(sunday, at('2026-03-29T01:00:00Z'))).toBe(true); // 03:00 CEST
    expect(isOpenAt(sunday, at('2026-03-29T01:59:00Z'))).toBe(true); // 03:59 CEST
    expect(isOpenAt(sunday, at('2026-03-29T02:00:00Z'))).toBe(false); // 04:00 CEST
  });

  it('the day the clocks go back: the repeated hour is open twice, the opening is its first time', () => {
    // Sunday 25 October 2026: 03:00 CEST becomes 02:00 CET (01:00 UTC)
    const sunday = hours('Europe/Berlin', { sun: [{ from: '02:00', to: '03:00' }] });
    expect(iso(nextOpening(sunday, at('2026-10-24T12:00:00Z')))).toBe('2026-10-25T00:00:00.000Z'); // 02:00 CEST
    expect(isOpenAt(sunday, at('2026-10-25T00:30:00Z'))).toBe(true); // 02:30 CEST
    expect(isOpenAt(sunday, at('2026-10-25T01:30:00Z'))).toBe(true); // 02:30 CET
    expect(isOpenAt(sunday, at('2026-10-25T02:00:00Z'))).toBe(false); // 03:00 CET
    // a 9 o'clock start that day is 08:00 UTC (CET), the day before 07:00 UTC (CEST)
    const nine = hours('Europe/Berlin', {
      sat: [{ from: '09:00', to: '10:00' }],
      sun: [{ from: '09:00', to: '10:00' }],
    });
    expect(iso(nextOpening(nine, at('2026-10-24T12:00:00Z')))).toBe('2026-10-25T08:00:00.000Z');
    expect(iso(nextOpening(nine, at('2026-10-24T06:00:00Z')))).toBe('2026-10-24T07:00:00.000Z');
  });

  it('across midnight: a late range to 24:00 and an early one the next day are open on both sides', () => {
    const late = hours('Europe/Berlin', {
      fri: [{ from: '22:00', to: '24:00' }],
      sat: [{ from: '00:00', to: '02:00' }],
    });
    // Friday 6 March 2026, CET
    expect(isOpenAt(late, at('2026-03-06T20:59:00Z'))).toBe(false); // 21:59
    expect(isOpenAt(late, at('2026-03-06T21:00:00Z'))).toBe(true); // 22:00
    expect(isOpenAt(late, at('2026-03-06T22:59:59Z'))).toBe(true); // 23:59:59
    expect(isOpenAt(late, at('2026-03-06T23:00:00Z'))).toBe(true); // Saturday 00:00
    expect(isOpenAt(late, at('2026-03-07T00:59:00Z'))).toBe(true); // 01:59
    expect(isOpenAt(late, at('2026-03-07T01:00:00Z'))).toBe(false); // 02:00
    // Saturday 03:00: the next is Friday 22:00
    expect(iso(nextOpening(late, at('2026-03-07T02:00:00Z')))).toBe('2026-03-13T21:00:00.000Z');
  });

  it('available: open and someone online; the team is asked only while open', () => {
    const open = at('2026-03-02T09:00:00Z');
    const closed = at('2026-03-02T17:00:00Z');
    let asked = 0;
    const online = (v: boolean) => () => {
      asked++;
      return v;
    };
    expect(handoffAvailability(null, online(true), open)).toEqual({ available: true, next_opening: null });
    expect(handoffAvailability(null, online(false), open)).toEqual({ available: false, next_opening: null });
    expect(handoffAvailability(berlin, online(true), open)).toEqual({ available: true, next_opening: null });
    asked = 0;
    expect(handoffAvailability(berlin, online(true), closed)).toEqual({
      available: false,
      next_opening: '2026-03-09T08:00:00.000Z',
    });
    expect(asked).toBe(0);
  });
});

async function start(clock = new ManualClock('2026-03-02T09:00:00.000Z')) {
  const t = await apps.start({ clock });
  const { agent, ...owner } = await accountWithAgent(t.app, { name: 'Hours bot' });
  return { t, clock, owner, agent };
}

/** An operator of the owner's account: their token. */
const operator = async (t: TestApp, ownerToken: string) => (await joinOperator(t, ownerToken)).token;

const publicHandoff = async (t: TestApp, id: string) =>
  (await sendExpect(t.app, null, 'GET', `/api/public/chatbot/${id}`)).handoff;

describe('the office_hours field', () => {
  it('null by default; stored with every weekday, ranges in order; null again is always open', async () => {
    const { t, owner, agent } = await start();
    expect(agent.office_hours).toBeNull();
    const put = await sendExpect(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, {
      office_hours: {
        time_zone: 'Europe/Berlin',
        days: { tue: [WEEKDAY_HOURS.days.tue[1], WEEKDAY_HOURS.days.tue[0]] },
      },
    });
    expect(put.office_hours).toEqual({
      time_zone: 'Europe/Berlin',
      days: { ...closedDays, tue: WEEKDAY_HOURS.days.tue },
    });
    expect((await sendExpect(t.app, owner.token, 'GET', `/api/chatbots/${agent.id}`)).office_hours).toEqual(
      put.office_hours,
    );
    const utc = await sendExpect(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, {
      office_hours: { time_zone: 'UTC', days: { sun: [{ from: '00:00', to: '24:00' }] } },
    });
    expect(utc.office_hours.days.sun).toEqual([{ from: '00:00', to: '24:00' }]);
    const cleared = await sendExpect(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, { office_hours: null });
    expect(cleared.office_hours).toBeNull();
    // created with office hours too
    const made = await createAgent(t.app, owner.token, { name: 'Made with hours', office_hours: WEEKDAY_HOURS });
    expect(made.office_hours.days.mon).toEqual(WEEKDAY_HOURS.days.mon);
  });

  it.each([
    ['an unknown zone', { time_zone: 'Mars/Olympus', days: {} }, 'office_hours.time_zone'],
    ['an offset instead of a zone', { time_zone: '+02:00', days: {} }, 'office_hours.time_zone'],
    ['H:MM', { time_zone: 'UTC', days: { mon: [{ from: '9:00', to: '17:00' }] } }, 'office_hours.days.mon.0.from'],
    ['25:00', { time_zone: 'UTC', days: { mon: [{ from: '09:00', to: '25:00' }] } }, 'office_hours.days.mon.0.to'],
    [
      'from after to',
      { time_zone: 'UTC', days: { mon: [{ from: '17:00', to: '09:00' }] } },
      'office_hours.days.mon.0.to',
    ],
    [
      'from equal to to',
      { time_zone: 'UTC', days: { mon: [{ from: '09:00', to: '09:00' }] } },
      'office_hours.days.mon.0.to',
    ],
    [
      '24:00 as a start',
      { time_zone: 'UTC', days: { mon: [{ from: '24:00', to: '24:00' }] } },
      'office_hours.days.mon.0',
    ],
    [
      'five ranges a day',
      {
        time_zone: 'UTC',
        days: { mon: ['01', '03', '05', '07', '09'].map((h) => ({ from: `${h}:00`, to: `${h}:30` })) },
      },
      'office_hours.days.mon',
    ],
    [
      'overlapping ranges',
      {
        time_zone: 'UTC',
        days: {
          mon: [
            { from: '09:00', to: '12:00' },
            { from: '11:00', to: '13:00' },
          ],
        },
      },
      'office_hours.days.mon',
    ],
    ['no days', { time_zone: 'UTC' }, 'office_hours.days'],
    ['a string', 'always', 'office_hours'],
  ])('%s is 400 naming the field, and nothing changes', async (_what, value, field) => {
    const { t, owner, agent } = await start();
    await sendExpect(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, { office_hours: WEEKDAY_HOURS });
    const before = await sendExpect(t.app, owner.token, 'GET', `/api/chatbots/${agent.id}`);
    const res = await send(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, {
      office_hours: value,
      name: 'Renamed',
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().detail).toContain(field);
    expect(await sendExpect(t.app, owner.token, 'GET', `/api/chatbots/${agent.id}`)).toEqual(before);
  });

  it("another account's agent is 404 as a missing one; an operator may not set office hours", async () => {
    const { t, owner, agent } = await start();
    const other = await registerUser(t.app);
    for (const id of [agent.id, 'no-such-agent']) {
      const res = await send(t.app, other.token, 'PUT', `/api/chatbots/${id}`, { office_hours: WEEKDAY_HOURS });
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toBe('Chatbot not found');
    }
    const op = await operator(t, owner.token);
    expect(
      (await send(t.app, op, 'PUT', `/api/chatbots/${agent.id}`, { office_hours: WEEKDAY_HOURS })).statusCode,
    ).toBe(403);
    expect((await sendExpect(t.app, owner.token, 'GET', `/api/chatbots/${agent.id}`)).office_hours).toBeNull();
  });
});

describe('availability', () => {
  it('everyone starts online; each person sets their own; the owner sees it in the member list', async () => {
    const { t, owner } = await start();
    const op = await operator(t, owner.token);
    expect(await sendExpect(t.app, op, 'GET', '/api/team/me/availability')).toEqual({ availability: 'online' });
    expect(await sendExpect(t.app, op, 'PUT', '/api/team/me/availability', { availability: 'away' })).toEqual({
      availability: 'away',
    });
    expect(await sendExpect(t.app, op, 'GET', '/api/team/me/availability')).toEqual({ availability: 'away' });
    // the operator's own, not the account's
    expect(await sendExpect(t.app, owner.token, 'GET', '/api/team/me/availability')).toEqual({
      availability: 'online',
    });
    const members = await sendExpect(t.app, owner.token, 'GET', '/api/team/members');
    expect(members.map((m: any) => [m.role, m.availability])).toEqual([
      ['owner', 'online'],
      ['operator', 'away'],
    ]);
    const bad = await send(t.app, op, 'PUT', '/api/team/me/availability', { availability: 'busy' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('availability');
    expect((await send(t.app, null, 'PUT', '/api/team/me/availability', { availability: 'away' })).statusCode).toBe(
      401,
    );
  });

  it("the public info's handoff follows the office hours and whoever of the team is online", async () => {
    const { t, clock, owner, agent } = await start();
    // always open, the owner online: as before
    expect(await publicHandoff(t, agent.id)).toEqual({ available: true, next_opening: null });
    await sendExpect(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, { office_hours: WEEKDAY_HOURS });
    // Monday 10:00 Berlin: open
    expect(await publicHandoff(t, agent.id)).toEqual({ available: true, next_opening: null });
    // Monday 18:00 Berlin: closed until Tuesday 09:00
    clock.set('2026-03-02T17:00:00.000Z');
    expect(await publicHandoff(t, agent.id)).toEqual({ available: false, next_opening: '2026-03-03T08:00:00.000Z' });
    // Tuesday's lunch break
    clock.set('2026-03-03T11:30:00.000Z');
    expect(await publicHandoff(t, agent.id)).toEqual({ available: false, next_opening: '2026-03-03T12:00:00.000Z' });
    // open, but the owner (alone) away
    clock.set('2026-03-03T08:30:00.000Z');
    await sendExpect(t.app, owner.token, 'PUT', '/api/team/me/availability', { availability: 'away' });
    expect(await publicHandoff(t, agent.id)).toEqual({ available: false, next_opening: null });
    // a teammate online is enough; another account's people do not count
    const other = await registerUser(t.app);
    await createAgent(t.app, other.token);
    expect(await publicHandoff(t, agent.id)).toEqual({ available: false, next_opening: null });
    const op = await operator(t, owner.token);
    expect(await publicHandoff(t, agent.id)).toEqual({ available: true, next_opening: null });
    await sendExpect(t.app, op, 'PUT', '/api/team/me/availability', { availability: 'away' });
    expect(await publicHandoff(t, agent.id)).toEqual({ available: false, next_opening: null });
  });
});

/** The events of a visitor's live stream until `until` has come (or 5 s passed). */
async function streamUntil(base: string, path: string, until: string): Promise<Array<{ event: string; data: any }>> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  const events: Array<{ event: string; data: any }> = [];
  try {
    const res = await fetch(base + path, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const taken = takeSseEvents(buffer + decoder.decode(chunk, { stream: true }));
      buffer = taken.rest;
      for (const e of taken.events) {
        events.push(e);
        if (e.event === 'status' && e.data?.status === until) return events;
      }
    }
  } catch {
    // aborted: the events so far
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

describe('asking for a person when nobody can come', () => {
  it('outside the office hours: the answer says so at once, the stream too, and the contact left is a lead of that conversation', async () => {
    const { t, clock, owner, agent } = await start();
    await sendExpect(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, {
      office_hours: WEEKDAY_HOURS,
      email_alerts_enabled: true,
      email_alert_address: (await sendExpect(t.app, owner.token, 'GET', '/api/auth/me')).email,
    });
    const created: any[] = [];
    t.app.events.on('lead.created', (e) => created.push(e));
    clock.set('2026-03-02T19:00:00.000Z'); // Monday 20:00 Berlin
    const session = 'visitor-after-hours';
    const answer = await say(t, agent.id, session, 'Hello?');
    const escalated = await sendExpect(t.app, null, 'POST', `/api/public/chat/${agent.id}/escalate`, {
      session_id: session,
    });
    expect(escalated).toEqual({
      conversation_id: answer.conversation_id,
      status: 'escalated',
      escalated_at: '2026-03-02T19:00:00.000Z',
      handoff: { available: false, next_opening: '2026-03-03T08:00:00.000Z' },
    });

    // the visitor's stream says it at once: the clock does not move, nobody waits for handoff_wait_s
    const base = `http://127.0.0.1:${await listenOnLoopback(t)}`;
    const events = await streamUntil(
      base,
      `/api/public/chat/${agent.id}/events?session_id=${session}`,
      'handoff_unavailable',
    );
    expect(events.at(-1)).toMatchObject({
      event: 'status',
      data: { status: 'handoff_unavailable', next_opening: '2026-03-03T08:00:00.000Z' },
    });

    const lead = await sendExpect(t.app, null, 'POST', `/api/public/lead/${agent.id}`, {
      name: 'Night Owl',
      phone: '+49 30 1234567',
      session_id: session,
    });
    expect(lead.conversation_id).toBe(answer.conversation_id);
    const listed = await sendExpect(t.app, owner.token, 'GET', `/api/chatbot-leads/${agent.id}`);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'Night Owl', conversation_id: answer.conversation_id });
    // the usual lead alert (queued: no mail server here) and lead.created
    const outbox = t.database.sqlite.prepare('SELECT subject FROM mail_outbox ORDER BY created_at').all() as any[];
    expect(outbox.map((r) => r.subject)).toContain('New lead for Hours bot');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ chatbot_id: agent.id, lead: { name: 'Night Owl', session_id: session } });
    // the owner's escalation e-mail says the visitor was offered the form
    const notice = outbox.find((r) => r.subject.startsWith('A visitor asked for a person'));
    expect(notice).toBeDefined();
    const body = (
      t.database.sqlite.prepare("SELECT body FROM mail_outbox WHERE subject LIKE 'A visitor asked%'").get() as any
    ).body;
    expect(body).toContain('offered the contact form');
  });

  it('an escalation by the agent\'s keywords while closed: a stream opened later says so at once, not "escalated"', async () => {
    const { t, clock, owner, agent } = await start();
    await sendExpect(t.app, owner.token, 'PUT', `/api/chatbots/${agent.id}`, {
      office_hours: WEEKDAY_HOURS,
      escalation_keywords: ['human'],
    });
    clock.set('2026-03-07T10:00:00.000Z'); // Saturday
    await say(t, agent.id, 'keyword-visitor', 'I want a human');
    const base = `http://127.0.0.1:${await listenOnLoopback(t)}`;
    const events = await streamUntil(
      base,
      `/api/public/chat/${agent.id}/events?session_id=keyword-visitor`,
      'handoff_unavailable',
    );
    expect(events[0]).toMatchObject({ event: 'ready', data: { status: 'escalated', handoff_unavailable: true } });
    expect(events.at(-1)?.data).toMatchObject({
      status: 'handoff_unavailable',
      next_opening: '2026-03-09T08:00:00.000Z',
    });
  });

  it('with everyone away: unavailable without a next opening; online again, the live handoff is as before', async () => {
    const { t, owner, agent } = await start();
    await sendExpect(t.app, owner.token, 'PUT', '/api/team/me/availability', { availability: 'away' });
    const first = await visitorEscalates(t, agent.id, 'away-1', 'Hello?');
    expect(first.handoff).toEqual({ available: false, next_opening: null });

    await sendExpect(t.app, owner.token, 'PUT', '/api/team/me/availability', { availability: 'online' });
    const second = await visitorEscalates(t, agent.id, 'away-2', 'Hello?');
    expect(second.handoff).toEqual({ available: true, next_opening: null });
    // the stream waits for a person as before (no handoff_unavailable)
    const base = `http://127.0.0.1:${await listenOnLoopback(t)}`;
    const controller = new AbortController();
    const res = await fetch(`${base}/api/public/chat/${agent.id}/events?session_id=away-2`, {
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const firstChunk = new TextDecoder().decode((await reader.read()).value);
    expect(firstChunk).toContain('event: ready');
    // take it over: the stream's next event is `taken`, not an unavailable or a timeout
    await sendExpect(t.app, owner.token, 'POST', `/api/chat/conversations/${agent.id}/${second.conversation_id}/take`);
    let text = '';
    while (!text.includes('"taken"')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).not.toContain('handoff_unavailable');
    expect(text).not.toContain('handoff_timeout');
    controller.abort();
  });

  it('an unknown agent, or a session that never spoke, is 404', async () => {
    const { t, agent } = await start();
    const res = await send(t.app, null, 'POST', '/api/public/chat/no-such-agent/escalate', { session_id: 'x' });
    expect(res.statusCode).toBe(404);
    const none = await send(t.app, null, 'POST', `/api/public/chat/${agent.id}/escalate`, {
      session_id: 'never-spoke',
    });
    expect(none.statusCode).toBe(404);
  });
});
