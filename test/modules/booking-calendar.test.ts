import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ical, { type VEvent } from 'node-ical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BusyInterval,
  bookingUid,
  CalendarFeedError,
  fetchBusyTimes,
  freeSlots,
  invitationIcs,
} from '../../src/modules/actions/booking-calendar.js';
import type { OfficeHours } from '../../src/modules/agents/index.js';

// The calendar side of booking: feeds served by a real HTTP server on 127.0.0.1.

function calendar(...components: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//booking//EN', ...components, 'END:VCALENDAR', ''].join(
    '\r\n',
  );
}

function vevent(uid: string, ...lines: string[]): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', `SUMMARY:${uid}`, ...lines, 'END:VEVENT'].join(
    '\r\n',
  );
}

const SINGLE_FEED = calendar(
  'X-WR-TIMEZONE:Europe/Berlin',
  vevent('utc', 'DTSTART:20260302T100000Z', 'DTEND:20260302T110000Z'),
  vevent('berlin', 'DTSTART;TZID=Europe/Berlin:20260302T140000', 'DTEND;TZID=Europe/Berlin:20260302T150000'),
  vevent('allday', 'DTSTART;VALUE=DATE:20260304', 'DTEND;VALUE=DATE:20260305'),
  vevent('floating', 'DTSTART:20260305T120000', 'DTEND:20260305T123000'),
  vevent('cancelled', 'DTSTART:20260303T100000Z', 'DTEND:20260303T110000Z', 'STATUS:CANCELLED'),
  vevent('transparent', 'DTSTART:20260303T120000Z', 'DTEND:20260303T130000Z', 'TRANSP:TRANSPARENT'),
  vevent('outside', 'DTSTART:20260401T100000Z', 'DTEND:20260401T110000Z'),
  [
    'BEGIN:VFREEBUSY',
    'UID:fb',
    'DTSTAMP:20260101T000000Z',
    'DTSTART:20260301T000000Z',
    'DTEND:20260401T000000Z',
    'FREEBUSY;FBTYPE=BUSY:20260306T080000Z/20260306T090000Z',
    'FREEBUSY;FBTYPE=FREE:20260306T120000Z/20260306T130000Z',
    'END:VFREEBUSY',
  ].join('\r\n'),
);

// Mondays 10:00-11:00 Berlin, six times from 2 March 2026; 9 March left out, 16 March moved to
// 14:00, 23 March cancelled; 30 March is after the clocks went forward (29 March)
const WEEKLY_FEED = calendar(
  vevent(
    'weekly',
    'DTSTART;TZID=Europe/Berlin:20260302T100000',
    'DTEND;TZID=Europe/Berlin:20260302T110000',
    'RRULE:FREQ=WEEKLY;COUNT=6',
    'EXDATE;TZID=Europe/Berlin:20260309T100000',
  ),
  vevent(
    'weekly',
    'RECURRENCE-ID;TZID=Europe/Berlin:20260316T100000',
    'DTSTART;TZID=Europe/Berlin:20260316T140000',
    'DTEND;TZID=Europe/Berlin:20260316T150000',
  ),
  vevent(
    'weekly',
    'RECURRENCE-ID;TZID=Europe/Berlin:20260323T100000',
    'DTSTART;TZID=Europe/Berlin:20260323T100000',
    'DTEND;TZID=Europe/Berlin:20260323T110000',
    'STATUS:CANCELLED',
  ),
);

interface Route {
  status?: number;
  type?: string;
  body?: string;
  /** never answer (the client's deadline ends it) */
  hang?: boolean;
  /** send the body without a Content-Length */
  chunked?: boolean;
}

const routes: Record<string, Route> = {
  '/single.ics': { body: SINGLE_FEED },
  '/weekly.ics': { body: WEEKLY_FEED },
  '/page.html': { type: 'text/html', body: '<!doctype html><html><body>Sign in to see this calendar</body></html>' },
  '/broken.ics': { status: 500, body: 'Internal Server Error' },
  '/huge.ics': {
    body: calendar(...Array.from({ length: 200 }, (_, i) => vevent(`e${i}`, 'DTSTART:20260302T100000Z'))),
  },
  '/huge-chunked.ics': {
    chunked: true,
    body: calendar(...Array.from({ length: 200 }, (_, i) => vevent(`e${i}`, 'DTSTART:20260302T100000Z'))),
  },
  '/slow.ics': { hang: true },
};

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    if (route.hang) return;
    const body = Buffer.from(route.body ?? '');
    const headers: http.OutgoingHttpHeaders = { 'content-type': route.type ?? 'text/calendar; charset=utf-8' };
    if (!route.chunked) headers['content-length'] = body.length;
    res.writeHead(route.status ?? 200, headers);
    if (route.chunked) {
      for (let i = 0; i < body.length; i += 1000) res.write(body.subarray(i, i + 1000));
      res.end();
    } else res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 10_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}, 10_000);

const MARCH = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-03-31T00:00:00Z') };

function iso(busy: BusyInterval[]): Array<[string, string]> {
  return busy.map((b) => [b.start.toISOString(), b.end.toISOString()]);
}

async function feedError(promise: Promise<unknown>): Promise<CalendarFeedError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CalendarFeedError);
  return err as CalendarFeedError;
}

describe('fetchBusyTimes', () => {
  it('reads single, all-day, floating and free/busy times; leaves out cancelled, transparent and outside ones', async () => {
    const busy = await fetchBusyTimes({ url: `${base}/single.ics`, allowPrivateUrls: true, ...MARCH });
    expect(iso(busy)).toEqual([
      ['2026-03-02T10:00:00.000Z', '2026-03-02T11:00:00.000Z'],
      // 14:00 in Berlin (UTC+1 in March)
      ['2026-03-02T13:00:00.000Z', '2026-03-02T14:00:00.000Z'],
      // 4 March as a whole day in the feed's zone (X-WR-TIMEZONE: Berlin)
      ['2026-03-03T23:00:00.000Z', '2026-03-04T23:00:00.000Z'],
      // 12:00 with no zone: the feed's zone
      ['2026-03-05T11:00:00.000Z', '2026-03-05T11:30:00.000Z'],
      ['2026-03-06T08:00:00.000Z', '2026-03-06T09:00:00.000Z'],
    ]);
  });

  it('all-day events are whole days in the zone given when the feed names none', async () => {
    const feed = SINGLE_FEED.replace('X-WR-TIMEZONE:Europe/Berlin\r\n', '');
    routes['/nozone.ics'] = { body: feed };
    const busy = await fetchBusyTimes({
      url: `${base}/nozone.ics`,
      allowPrivateUrls: true,
      timeZone: 'America/New_York',
      ...MARCH,
    });
    expect(iso(busy)).toContainEqual(['2026-03-04T05:00:00.000Z', '2026-03-05T05:00:00.000Z']);
  });

  it('expands a weekly rule with its EXDATE, a moved and a cancelled instance, across a DST change', async () => {
    const busy = await fetchBusyTimes({
      url: `${base}/weekly.ics`,
      allowPrivateUrls: true,
      from: new Date('2026-03-01T00:00:00Z'),
      to: new Date('2026-04-30T00:00:00Z'),
    });
    expect(iso(busy)).toEqual([
      ['2026-03-02T09:00:00.000Z', '2026-03-02T10:00:00.000Z'],
      // 9 March: EXDATE; 16 March: moved to 14:00
      ['2026-03-16T13:00:00.000Z', '2026-03-16T14:00:00.000Z'],
      // 23 March: cancelled; 30 March and 6 April: still 10:00 in Berlin, now UTC+2
      ['2026-03-30T08:00:00.000Z', '2026-03-30T09:00:00.000Z'],
      ['2026-04-06T08:00:00.000Z', '2026-04-06T09:00:00.000Z'],
    ]);
  });

  it('returns only what overlaps the window (an event running into it counts)', async () => {
    const busy = await fetchBusyTimes({
      url: `${base}/single.ics`,
      allowPrivateUrls: true,
      from: new Date('2026-03-02T10:30:00Z'),
      to: new Date('2026-03-02T13:00:00Z'),
    });
    expect(iso(busy)).toEqual([['2026-03-02T10:00:00.000Z', '2026-03-02T11:00:00.000Z']]);
  });

  it('refuses a loopback URL unless private URLs are allowed', async () => {
    const err = await feedError(fetchBusyTimes({ url: `${base}/single.ics`, allowPrivateUrls: false, ...MARCH }));
    expect(err.reason).toBe('unsafe_url');
    expect(err.message).toMatch(/^The calendar URL cannot be used: .*not a public address/);
  });

  it('refuses the feed when a rule cannot be expanded (every minute, forever)', async () => {
    routes['/minutely.ics'] = {
      body: calendar(vevent('tick', 'DTSTART:20260101T000000Z', 'DTEND:20260101T000030Z', 'RRULE:FREQ=MINUTELY')),
    };
    const err = await feedError(fetchBusyTimes({ url: `${base}/minutely.ics`, allowPrivateUrls: true, ...MARCH }));
    expect(err.reason).toBe('not_icalendar');
    expect(err.message).toMatch(/^The calendar feed has an event that could not be read \(tick\)/);
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    const fetching = fetchBusyTimes({
      url: `${base}/slow.ics`,
      allowPrivateUrls: true,
      signal: controller.signal,
      ...MARCH,
    });
    controller.abort();
    const err = await feedError(fetching);
    expect(err.message).toBe('The calendar feed could not be fetched: The fetch was cancelled.');
  });

  it('a body that is not iCalendar', async () => {
    const err = await feedError(fetchBusyTimes({ url: `${base}/page.html`, allowPrivateUrls: true, ...MARCH }));
    expect(err.reason).toBe('not_icalendar');
    expect(err.message).toMatch(/did not answer an iCalendar feed/);
  });

  it('an error status', async () => {
    const err = await feedError(fetchBusyTimes({ url: `${base}/broken.ics`, allowPrivateUrls: true, ...MARCH }));
    expect(err.reason).toBe('http_status');
    expect(err.message).toMatch(/answered HTTP 500/);
    const missing = await feedError(fetchBusyTimes({ url: `${base}/nothing.ics`, allowPrivateUrls: true, ...MARCH }));
    expect(missing.message).toMatch(/answered HTTP 404/);
  });

  it('a body over the cap, announced or not', async () => {
    for (const path of ['/huge.ics', '/huge-chunked.ics']) {
      const err = await feedError(
        fetchBusyTimes({ url: `${base}${path}`, allowPrivateUrls: true, maxBytes: 4096, ...MARCH }),
      );
      expect(err.reason).toBe('fetch_failed');
      expect(err.message).toBe(
        'The calendar feed could not be fetched: The calendar feed is too large (more than 4096 bytes).',
      );
    }
  });

  it('a server that does not answer in time', async () => {
    const started = Date.now();
    const err = await feedError(
      fetchBusyTimes({ url: `${base}/slow.ics`, allowPrivateUrls: true, timeoutMs: 300, ...MARCH }),
    );
    expect(err.reason).toBe('fetch_failed');
    expect(err.message).toMatch(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

const BERLIN_MORNINGS: OfficeHours = {
  time_zone: 'Europe/Berlin',
  days: {
    mon: [{ from: '09:00', to: '12:00' }],
    tue: [{ from: '09:00', to: '12:00' }],
    wed: [{ from: '09:00', to: '12:00' }],
    thu: [{ from: '09:00', to: '12:00' }],
    fri: [{ from: '09:00', to: '12:00' }],
    sat: [],
    // the clocks go forward at 02:00 on 29 March 2026
    sun: [{ from: '01:00', to: '04:00' }],
  },
};

const berlinClock = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Berlin',
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const inBerlin = (isoTime: string) => berlinClock.format(new Date(isoTime));

/** freeSlots with nothing busy, in `officeHours` (Berlin's mornings unless given), the range's times in ISO form */
function freeIn(
  range: { from: string; to: string; now: string },
  slotMinutes: number,
  officeHours: OfficeHours | null = BERLIN_MORNINGS,
) {
  const [from, to, now] = [range.from, range.to, range.now].map((iso) => new Date(iso)) as [Date, Date, Date];
  return freeSlots({ busy: [], officeHours, slotMinutes, from, to, now });
}

describe('freeSlots', () => {
  it.each([
    [
      'keeps local wall-clock times across the DST change, and leaves out the skipped hour',
      { from: '2026-03-27T00:00:00Z', to: '2026-03-31T00:00:00Z', now: '2026-03-01T00:00:00Z' },
      [
        ['2026-03-27T08:00:00.000Z', 'Fri 09:00', 'Fri 10:00'],
        ['2026-03-27T09:00:00.000Z', 'Fri 10:00', 'Fri 11:00'],
        ['2026-03-27T10:00:00.000Z', 'Fri 11:00', 'Fri 12:00'],
        // Sunday 01:00-02:00 would end at a time that does not exist, 02:00-03:00 is skipped
        ['2026-03-29T01:00:00.000Z', 'Sun 03:00', 'Sun 04:00'],
        ['2026-03-30T07:00:00.000Z', 'Mon 09:00', 'Mon 10:00'],
        ['2026-03-30T08:00:00.000Z', 'Mon 10:00', 'Mon 11:00'],
        ['2026-03-30T09:00:00.000Z', 'Mon 11:00', 'Mon 12:00'],
      ],
    ],
    [
      'and when the clocks go back (25 October), leaves out the slot the repeated hour would stretch',
      { from: '2026-10-23T08:00:00Z', to: '2026-10-26T09:00:00Z', now: '2026-10-01T00:00:00Z' },
      [
        // from is 10:00 in Berlin on Friday (UTC+2)
        ['2026-10-23T08:00:00.000Z', 'Fri 10:00', 'Fri 11:00'],
        ['2026-10-23T09:00:00.000Z', 'Fri 11:00', 'Fri 12:00'],
        ['2026-10-24T23:00:00.000Z', 'Sun 01:00', 'Sun 02:00'],
        // 02:00-03:00 would last two hours (02:00 comes twice)
        ['2026-10-25T02:00:00.000Z', 'Sun 03:00', 'Sun 04:00'],
        // Monday (UTC+1): to is 10:00 in Berlin
        ['2026-10-26T08:00:00.000Z', 'Mon 09:00', 'Mon 10:00'],
      ],
    ],
  ])('%s', (_what, range, expected) => {
    const slots = freeIn(range, 60);
    expect(slots.map((s) => [s.start, inBerlin(s.start), inBerlin(s.end)])).toEqual(expected);
  });

  it('never overlaps a busy time, stays in office hours, starts on slot boundaries and not in the past', async () => {
    const busy = await fetchBusyTimes({ url: `${base}/weekly.ics`, allowPrivateUrls: true, ...MARCH });
    const extra = { start: new Date('2026-03-03T08:15:00Z'), end: new Date('2026-03-03T09:05:00Z') };
    const now = new Date('2026-03-02T08:10:00Z');
    const slots = freeSlots({
      busy: [...busy, extra],
      officeHours: BERLIN_MORNINGS,
      slotMinutes: 30,
      from: new Date('2026-03-01T00:00:00Z'),
      to: new Date('2026-03-21T00:00:00Z'),
      now,
      limit: 500,
    });
    expect(slots.length).toBeGreaterThan(40);
    for (const slot of slots) {
      const start = Date.parse(slot.start);
      const end = Date.parse(slot.end);
      expect(end - start).toBe(30 * 60_000);
      expect(start).toBeGreaterThanOrEqual(now.getTime());
      for (const b of [...busy, extra]) expect(start < b.end.getTime() && b.start.getTime() < end).toBe(false);
      // in a range of that day in Berlin, on a half hour from the range's start
      const [day, time] = inBerlin(slot.start).split(' ') as [string, string];
      const [endDay, endTime] = inBerlin(slot.end).split(' ') as [string, string];
      const ranges = BERLIN_MORNINGS.days[day.toLowerCase() as keyof OfficeHours['days']];
      expect(endDay).toBe(day);
      expect(ranges.some((r) => r.from <= time && endTime <= r.to)).toBe(true);
      expect(time).toMatch(/:(00|30)$/);
    }
    // Monday 2 March: 09:00 is past (now 09:10 in Berlin), 10:00-11:00 is the weekly event
    expect(slots.slice(0, 3).map((s) => inBerlin(s.start))).toEqual(['Mon 09:30', 'Mon 11:00', 'Mon 11:30']);
    // Tuesday: 09:15-10:05 busy takes 09:00, 09:30 and 10:00
    expect(slots.filter((s) => inBerlin(s.start).startsWith('Tue')).map((s) => s.start)[0]).toBe(
      '2026-03-03T09:30:00.000Z',
    );
    // Monday 16 March: the moved instance (14:00) is outside these hours, so the morning is free
    expect(slots.filter((s) => s.start.startsWith('2026-03-16')).length).toBe(6);
  });

  it('offers at most 50 by default, earliest first', () => {
    const slots = freeIn({ from: '2026-03-02T00:00:00Z', to: '2026-03-16T00:00:00Z', now: '2026-03-01T00:00:00Z' }, 15);
    expect(slots).toHaveLength(50);
    expect(slots.map((s) => s.start)).toEqual([...slots.map((s) => s.start)].sort());
    expect(slots[0]).toEqual({ start: '2026-03-02T08:00:00.000Z', end: '2026-03-02T08:15:00.000Z' });
  });

  it('without office hours: Monday to Friday, 09:00 to 17:00 UTC', () => {
    // Friday 6 March to Monday 9 March
    const slots = freeIn(
      { from: '2026-03-06T00:00:00Z', to: '2026-03-09T10:00:00Z', now: '2026-03-01T00:00:00Z' },
      60,
      null,
    );
    expect(slots.map((s) => s.start)).toEqual([
      ...[9, 10, 11, 12, 13, 14, 15, 16].map((h) => `2026-03-06T${String(h).padStart(2, '0')}:00:00.000Z`),
      '2026-03-09T09:00:00.000Z',
    ]);
  });

  it('refuses a slot length that is not a whole number of minutes from 5 to 1440', () => {
    const input = { busy: [], officeHours: null, from: MARCH.from, to: MARCH.to, now: MARCH.from };
    expect(() => freeSlots({ ...input, slotMinutes: 0 })).toThrow(RangeError);
    expect(() => freeSlots({ ...input, slotMinutes: 12.5 })).toThrow(RangeError);
  });
});

describe('invitationIcs', () => {
  it('is a METHOD:REQUEST invitation that reads back with its times, people and a stable UID', () => {
    const input = {
      id: 'b1a2c3',
      start: new Date('2026-03-02T13:00:00Z'),
      end: new Date('2026-03-02T13:30:00Z'),
      summary: 'Call with Ada; about the offer',
      description: 'Booked in the chat.\nSee you then.',
      organizer: { name: 'Acme Support', email: 'owner@example.com' },
      attendee: { name: 'Ada Lovelace', email: 'ada@example.org' },
      timeZone: 'Europe/Berlin',
      now: new Date('2026-03-01T12:00:00Z'),
    };
    const text = invitationIcs(input);
    expect(text).toContain('METHOD:REQUEST');
    expect(text).toBe(invitationIcs(input));

    const data = ical.sync.parseICS(text);
    expect(data.vcalendar?.method).toBe('REQUEST');
    const events = Object.values(data).filter((c): c is VEvent => c?.type === 'VEVENT');
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.uid).toBe(bookingUid('b1a2c3'));
    expect(event.start.toISOString()).toBe('2026-03-02T13:00:00.000Z');
    expect(event.end?.toISOString()).toBe('2026-03-02T13:30:00.000Z');
    expect(event.summary).toBe('Call with Ada; about the offer');
    expect(event.description).toBe('Booked in the chat.\nSee you then.');
    const attendee = event.attendee as { val: string; params: Record<string, unknown> };
    expect(attendee.val.toLowerCase()).toBe('mailto:ada@example.org');
    expect(attendee.params).toMatchObject({ CN: 'Ada Lovelace', ROLE: 'REQ-PARTICIPANT', PARTSTAT: 'NEEDS-ACTION' });
    const organizer = event.organizer as { val: string; params: Record<string, unknown> };
    expect(organizer.val.toLowerCase()).toBe('mailto:owner@example.com');
    expect(organizer.params.CN).toBe('Acme Support');
  });
});
