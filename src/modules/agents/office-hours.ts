import { z } from 'zod';
import { FIELD_MAX } from '../field-limits.js';

/**
 * An agent's office hours (docs/API-NOTES.md "Office hours and availability"): per weekday a few
 * ranges of wall-clock time in one IANA time zone; null on the agent means always open. Whether
 * they are open at an instant, and when they open next, are computed with Intl in the zone (DST
 * included), from the app's clock: no time-zone library.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface TimeRange {
  from: string;
  to: string;
}

export interface OfficeHours {
  time_zone: string;
  days: Record<Weekday, TimeRange[]>;
}

/** At most this many ranges on one day (a morning and an afternoon, with room to spare). */
export const MAX_RANGES_PER_DAY = 4;

let zones: Set<string> | undefined;
/** The time zones this Node knows (Intl's list, which leaves out plain `UTC`, plus `UTC`). */
export function knownTimeZone(zone: string): boolean {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  return zones.has(zone);
}

/** "HH:MM" as minutes of the day; `to` may be 24:00 (the end of the day). */
function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

const TIME_RULE = 'must be HH:MM, 00:00 to 23:59 (24:00 as the end of a day)';
const time = z
  .string()
  .max(FIELD_MAX.agent.office_hours_time)
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, TIME_RULE);
const range = z
  .object({ from: time, to: time })
  .refine((r) => r.from !== '24:00', { message: 'from: 24:00 is the end of a day, not a start', path: ['from'] })
  .refine((r) => minutesOf(r.from) < minutesOf(r.to), { message: 'from must be before to', path: ['to'] });
const day = z
  .array(range)
  .max(MAX_RANGES_PER_DAY, { message: `at most ${MAX_RANGES_PER_DAY} ranges a day` })
  .transform((ranges) => [...ranges].sort((a, b) => minutesOf(a.from) - minutesOf(b.from)))
  .refine((ranges) => ranges.every((r, i) => i === 0 || minutesOf(ranges[i - 1]!.to) <= minutesOf(r.from)), {
    message: 'ranges of one day must not overlap',
  });

/** The office_hours field: null (always open) or a time zone and each weekday's ranges (a missing day: closed). */
export const officeHoursSchema = z
  .object({
    time_zone: z
      .string()
      .max(100)
      .refine(knownTimeZone, { message: 'must be an IANA time zone such as Europe/Berlin' }),
    days: z.object(
      Object.fromEntries(WEEKDAYS.map((d) => [d, day.optional()])) as Record<Weekday, z.ZodOptional<typeof day>>,
    ),
  })
  .transform(
    (v): OfficeHours => ({
      time_zone: v.time_zone,
      days: Object.fromEntries(WEEKDAYS.map((d) => [d, v.days[d] ?? []])) as Record<Weekday, TimeRange[]>,
    }),
  );

/** As answered: every weekday present. */
export const officeHoursView = z.object({
  time_zone: z.string(),
  days: z.object(
    Object.fromEntries(WEEKDAYS.map((d) => [d, z.object({ from: z.string(), to: z.string() }).array()])) as Record<
      Weekday,
      z.ZodArray<z.ZodObject<{ from: z.ZodString; to: z.ZodString }>>
    >,
  ),
});

// --- the clock in a zone --------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

interface WallTime {
  /** the local wall time read as if it were UTC, in ms (for offsets and date steps) */
  wall: number;
  weekday: Weekday;
  /** minutes since local midnight */
  minutes: number;
}

const SHORT_DAYS: Record<string, Weekday> = {
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
  Sun: 'sun',
};

/** The wall clock in `zone` at the instant `t` (ms). */
function wallTime(zone: string, t: number): WallTime {
  const p: Record<string, string> = {};
  for (const part of formatter(zone).formatToParts(new Date(t))) p[part.type] = part.value;
  const hour = Number(p.hour);
  const minute = Number(p.minute);
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), hour, minute, Number(p.second));
  return {
    wall: wall + (t - Math.floor(t / 1000) * 1000),
    weekday: SHORT_DAYS[p.weekday!]!,
    minutes: hour * 60 + minute,
  };
}

/** The wall clock in `zone` at the instant `t`, read as if it were UTC (ms): for stepping days in a zone. */
export function wallClockMs(zone: string, t: number): number {
  return wallTime(zone, t).wall;
}

/** The zone's offset from UTC at `t` (ms; +1h is 3,600,000 for Berlin in winter). */
function offsetAt(zone: string, t: number): number {
  return wallTime(zone, t).wall - t;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * The instant at which the wall clock in `zone` shows `wall` (a local time read as UTC). Twice on
 * the day the clocks go back: the first. Never on the day they go forward (a time in the gap): the
 * end of the gap, the first instant after it.
 */
export function instantOfWallTime(zone: string, wall: number): number {
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const candidates = [wall - before, wall - after].filter((t) => wallTime(zone, t).wall === wall);
  if (candidates.length) return Math.min(...candidates);
  // in the gap: the clocks jumped between the two readings; the first instant after the jump
  let lo = Math.min(wall - before, wall - after);
  let hi = Math.max(wall - before, wall - after);
  const startOffset = offsetAt(zone, lo);
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
    if (offsetAt(zone, mid) === startOffset) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Whether the office hours are open at instant `t`. */
export function isOpenAt(hours: OfficeHours, t: number): boolean {
  const { weekday, minutes } = wallTime(hours.time_zone, t);
  return hours.days[weekday].some((r) => minutesOf(r.from) <= minutes && minutes < minutesOf(r.to));
}

/**
 * The first instant after `t` at which the office hours open (a range starts, the hours being
 * closed at `t`), looked for within the next 8 local days; null when no day has a range.
 */
export function nextOpening(hours: OfficeHours, t: number): number | null {
  const zone = hours.time_zone;
  const local = wallTime(zone, t);
  const midnight = local.wall - (local.wall % DAY_MS);
  const first = WEEKDAYS.indexOf(local.weekday);
  for (let i = 0; i <= 7; i++) {
    const weekday = WEEKDAYS[(first + i) % 7]!;
    for (const r of hours.days[weekday]) {
      const at = instantOfWallTime(zone, midnight + i * DAY_MS + minutesOf(r.from) * MINUTE_MS);
      // a start that fell in a skipped hour (and so may not be open at all): checked like any other
      if (at > t && isOpenAt(hours, at)) return at;
    }
  }
  return null;
}

/** What the widget is told: whether a person can come now, and when the office hours open next. */
export interface HandoffAvailability {
  available: boolean;
  /** ISO time; null when available, when open but nobody is online, or when no day has office hours */
  next_opening: string | null;
}

/** Office hours (null: always open) and whether anyone of the team is online (asked only while open), at instant `t`. */
export function handoffAvailability(
  hours: OfficeHours | null,
  anyoneOnline: () => boolean,
  t: number,
): HandoffAvailability {
  const open = hours === null || isOpenAt(hours, t);
  if (open) return { available: anyoneOnline(), next_opening: null };
  const next = nextOpening(hours, t);
  return { available: false, next_opening: next === null ? null : new Date(next).toISOString() };
}
