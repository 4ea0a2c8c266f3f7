import type { CalendarResponse, DateWithTimeZone, EventInstance, VEvent, VFreebusy } from 'node-ical';
import { lazy } from '../../platform/lazy.js';
import { safeFetch } from '../../platform/net/safe-fetch.js';
import { FetchFailedError, UnsafeUrlError } from '../../platform/net/types.js';
import { instantOfWallTime, knownTimeZone } from '../agents/index.js';

/**
 * The calendar side of a booking action (docs/ACTIONS.md): the owner's busy times, read from their
 * iCalendar feed through the safe fetch; the free slots (booking-slots.ts) and the invitation sent
 * when a visitor books one (booking-invitation.ts) are re-exported here, so the actions runner
 * imports one file.
 */

export { DEFAULT_BOOKING_HOURS, freeSlots, type FreeSlotsInput, MAX_SLOTS, type Slot } from './booking-slots.js';
export { bookingUid, type InvitationInput, invitationIcs } from './booking-invitation.js';

/** node-ical (and the Temporal polyfill under it) costs ~140 ms and ~4 MB to import: loaded on the first fetch */
const nodeIcal = lazy(() => import('node-ical'));
type NodeIcal = Awaited<ReturnType<typeof nodeIcal>>;

/** A time the owner is busy, [start, end). */
export interface BusyInterval {
  start: Date;
  end: Date;
}

export type CalendarFeedFailure = 'unsafe_url' | 'fetch_failed' | 'http_status' | 'not_icalendar';

/** The feed could not be used; `message` is for the owner (what is wrong and what to check). */
export class CalendarFeedError extends Error {
  override name = 'CalendarFeedError';
  constructor(
    message: string,
    readonly reason: CalendarFeedFailure,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** a calendar's feed is small; 2 MB holds years of a busy person's events */
export const FEED_MAX_BYTES = 2 * 1024 * 1024;
export const FEED_TIMEOUT_MS = 10_000;

export interface FetchBusyTimesInput {
  url: string;
  /** ALLOW_PRIVATE_URLS: loopback and private addresses may be fetched (tests, a LAN calendar server) */
  allowPrivateUrls: boolean;
  /** whole exchange; default FEED_TIMEOUT_MS */
  timeoutMs?: number;
  /** default FEED_MAX_BYTES */
  maxBytes?: number;
  from: Date;
  to: Date;
  /**
   * the zone of all-day events and floating times when the feed names none (X-WR-TIMEZONE), e.g.
   * the office hours' zone; default UTC
   */
  timeZone?: string;
  signal?: AbortSignal;
}

/**
 * GETs the feed (safe fetch: public addresses only unless allowPrivateUrls, a deadline, a byte
 * cap) and returns the busy intervals that overlap [from, to), sorted and merged. Throws
 * CalendarFeedError with a message the owner can act on.
 */
export async function fetchBusyTimes(input: FetchBusyTimesInput): Promise<BusyInterval[]> {
  const maxBytes = input.maxBytes ?? FEED_MAX_BYTES;
  let answer: Awaited<ReturnType<typeof safeFetch>>;
  try {
    answer = await safeFetch(input.url, {
      allowPrivate: input.allowPrivateUrls,
      timeoutMs: input.timeoutMs ?? FEED_TIMEOUT_MS,
      maxBytes,
      signal: input.signal,
    });
  } catch (err) {
    if (err instanceof UnsafeUrlError)
      throw new CalendarFeedError(`The calendar URL cannot be used: ${err.message}`, 'unsafe_url', { cause: err });
    if (err instanceof FetchFailedError) {
      // the safe fetch speaks of pages; here it is a feed
      const message = err.message.replace(/^The page is too large/, 'The calendar feed is too large');
      throw new CalendarFeedError(`The calendar feed could not be fetched: ${message}`, 'fetch_failed', {
        cause: err,
      });
    }
    throw err;
  }
  if (answer.status < 200 || answer.status > 299)
    throw new CalendarFeedError(
      `The calendar feed answered HTTP ${answer.status}; check that the URL is the calendar's iCal (.ics) address and that it is shared.`,
      'http_status',
    );
  const text = answer.body.toString('utf8');
  return busyTimesFromIcs(await nodeIcal(), text, input);
}

const ICAL_START = /^\uFEFF?\s*BEGIN:VCALENDAR\b/i;
const DAY_MS = 86_400_000;

/**
 * fetchBusyTimes's second half, once node-ical is loaded: the busy intervals
 * of an iCalendar text within [from, to): opaque, not cancelled VEVENTs (recurring ones expanded
 * with their EXDATEs and moved or cancelled instances), all-day ones as whole days, and the BUSY
 * periods of VFREEBUSY components.
 */
function busyTimesFromIcs(
  ical: NodeIcal,
  text: string,
  window: { from: Date; to: Date; timeZone?: string },
): BusyInterval[] {
  if (!ICAL_START.test(text))
    throw new CalendarFeedError(
      "The calendar URL did not answer an iCalendar feed (it should begin with BEGIN:VCALENDAR); use the calendar's iCal (.ics) address, not its web page.",
      'not_icalendar',
    );
  const from = window.from.getTime();
  const to = window.to.getTime();
  let data: CalendarResponse;
  try {
    data = ical.sync.parseICS(text);
  } catch (err) {
    throw new CalendarFeedError(
      `The calendar feed could not be read as iCalendar: ${err instanceof Error ? err.message : String(err)}`,
      'not_icalendar',
      { cause: err },
    );
  }
  const feedZone = data.vcalendar?.['WR-TIMEZONE'];
  const zone = [feedZone, window.timeZone].find((z) => z !== undefined && knownTimeZone(z)) ?? 'UTC';

  const busy: BusyInterval[] = [];
  const add = (start: number, end: number) => {
    if (end > start && start < to && end > from) busy.push({ start: new Date(start), end: new Date(end) });
  };
  for (const [key, component] of Object.entries(data)) {
    if (key === 'vcalendar' || !component || typeof component !== 'object') continue;
    if (component.type === 'VEVENT') {
      for (const [start, end] of eventBusy(ical, component as VEvent, from, to, zone)) add(start, end);
    } else if (component.type === 'VFREEBUSY') {
      for (const period of (component as VFreebusy).freebusy ?? []) {
        if (!period.type?.startsWith('BUSY')) continue;
        add(new Date(period.start).getTime(), new Date(period.end).getTime());
      }
    }
  }
  return mergeIntervals(busy);
}

/** [start, end] in ms of each busy instance of one VEVENT (and its overrides) near [from, to). */
function eventBusy(ical: NodeIcal, event: VEvent, from: number, to: number, zone: string): Array<[number, number]> {
  if (!(event.start instanceof Date)) return [];
  let instances: EventInstance[];
  try {
    // a day's margin either side: all-day and floating instances are placed in `zone` below,
    // node-ical having read them in the process's own zone
    instances = ical.expandRecurringEvent(event, {
      from: new Date(from - DAY_MS),
      to: new Date(to + DAY_MS),
      expandOngoing: true,
    });
  } catch (err) {
    // e.g. a rule that repeats every minute (node-ical's rule engine stops past 10,000 steps);
    // skipping the event could offer a time the owner is not free: the whole feed is refused instead
    throw new CalendarFeedError(
      `The calendar feed has an event that could not be read (${event.uid ?? 'no UID'}): ${err instanceof Error ? err.message : String(err)}`,
      'not_icalendar',
      { cause: err },
    );
  }
  const out: Array<[number, number]> = [];
  for (const instance of instances) {
    // an instance moved by a RECURRENCE-ID carries its own status and transparency
    const own = instance.event;
    if (own.status === 'CANCELLED' || own.transparency === 'TRANSPARENT') continue;
    if (instance.isFullDay) {
      const start = zoneMidnight(zone, instance.start);
      let end = zoneMidnight(zone, instance.end);
      if (end <= start) end = zoneMidnight(zone, instance.start, 1);
      out.push([start, end]);
    } else if (isFloating(instance.start)) {
      out.push([floatingIn(zone, instance.start), floatingIn(zone, instance.end)]);
    } else {
      out.push([instance.start.getTime(), instance.end.getTime()]);
    }
  }
  return out;
}

/** a DATE-TIME with neither Z nor TZID: node-ical read it in the process's zone */
function isFloating(date: DateWithTimeZone): boolean {
  return !date.tz && !date.dateOnly;
}

/** The local wall time node-ical read (process zone) as the same wall time in `zone`. */
function floatingIn(zone: string, date: Date): number {
  const wall = Date.UTC(
    date.getFullYear(),
    date.getMonth(),
    date.getDate(),
    date.getHours(),
    date.getMinutes(),
    date.getSeconds(),
  );
  return instantOfWallTime(zone, wall);
}

/**
 * Midnight in `zone` of the calendar day node-ical gave an all-day instance (a local-midnight Date
 * in the process's zone), plus `addDays` days.
 */
function zoneMidnight(zone: string, date: Date, addDays = 0): number {
  return instantOfWallTime(zone, Date.UTC(date.getFullYear(), date.getMonth(), date.getDate() + addDays));
}

/** Sorted by start, overlapping and touching intervals joined. */
function mergeIntervals(intervals: BusyInterval[]): BusyInterval[] {
  const sorted = [...intervals].sort((a, b) => a.start.getTime() - b.start.getTime());
  const out: BusyInterval[] = [];
  for (const next of sorted) {
    const last = out[out.length - 1];
    if (last && next.start.getTime() <= last.end.getTime()) {
      if (next.end.getTime() > last.end.getTime()) last.end = next.end;
    } else out.push({ start: next.start, end: next.end });
  }
  return out;
}
