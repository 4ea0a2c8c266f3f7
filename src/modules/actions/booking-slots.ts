import { instantOfWallTime, type OfficeHours, WEEKDAYS, wallClockMs } from '../agents/index.js';

/** A bookable time, [start, end), as ISO UTC times. */
export interface Slot {
  start: string;
  end: string;
}

/** At most this many slots are offered at once (a visitor reads a short list; the model a short tool answer). */
export const MAX_SLOTS = 50;

const NINE_TO_FIVE = [{ from: '09:00', to: '17:00' }];

/**
 * The hours slots are offered in when the agent has no office hours. For handing a chat to a
 * person, no office hours means "always open"; for a meeting it would offer 3 a.m. and Sundays,
 * so booking falls back to the common working week instead: Monday to Friday, 09:00 to 17:00,
 * in UTC (the only zone that needs no setting; an owner elsewhere sets office hours to move it).
 */
export const DEFAULT_BOOKING_HOURS: OfficeHours = {
  time_zone: 'UTC',
  days: {
    mon: NINE_TO_FIVE,
    tue: NINE_TO_FIVE,
    wed: NINE_TO_FIVE,
    thu: NINE_TO_FIVE,
    fri: NINE_TO_FIVE,
    sat: [],
    sun: [],
  },
};

export interface FreeSlotsInput {
  /** the owner's busy times (fetchBusyTimes), any order */
  busy: ReadonlyArray<{ start: Date; end: Date }>;
  /** null: DEFAULT_BOOKING_HOURS */
  officeHours: OfficeHours | null;
  /** a whole number of minutes, 5 to 1440 */
  slotMinutes: number;
  from: Date;
  to: Date;
  /** no slot starts before this */
  now: Date;
  /** default MAX_SLOTS */
  limit?: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * The first `limit` free slots within [from, to), earliest first. Each office-hours range of each
 * local day is cut into slots of slotMinutes from its start (09:00, 09:30, ... for 30 minutes; a
 * rest shorter than a slot at its end is not offered), in the office hours' zone: a slot keeps its
 * wall-clock time across a DST change, and one that the change would shorten, lengthen or put in
 * a skipped hour is left out. A slot is offered when it starts at or after `now` and `from`, ends
 * by `to`, and overlaps no busy interval (touching one is fine).
 */
export function freeSlots(input: FreeSlotsInput): Slot[] {
  const { slotMinutes } = input;
  if (!Number.isInteger(slotMinutes) || slotMinutes < 5 || slotMinutes > 1440)
    throw new RangeError(`slotMinutes must be a whole number from 5 to 1440 (got ${slotMinutes})`);
  const hours = input.officeHours ?? DEFAULT_BOOKING_HOURS;
  const zone = hours.time_zone;
  const limit = input.limit ?? MAX_SLOTS;
  const from = input.from.getTime();
  const to = input.to.getTime();
  const earliest = Math.max(from, input.now.getTime());
  const slotMs = slotMinutes * MINUTE_MS;

  const busy = input.busy
    .map((b) => ({ start: b.start.getTime(), end: b.end.getTime() }))
    .filter((b) => b.end > b.start)
    .sort((a, b) => a.start - b.start);
  // slots come earliest first, so the busy intervals that end before a slot need not be looked at again
  let firstBusy = 0;
  const overlapsBusy = (start: number, end: number) => {
    while (firstBusy < busy.length && busy[firstBusy]!.end <= start) firstBusy++;
    for (let i = firstBusy; i < busy.length && busy[i]!.start < end; i++) if (busy[i]!.end > start) return true;
    return false;
  };

  const slots: Slot[] = [];
  const lastDay = startOfDay(wallClockMs(zone, to));
  for (let day = startOfDay(wallClockMs(zone, earliest)); day <= lastDay && slots.length < limit; day += DAY_MS) {
    // 1970-01-01 was a Thursday; getUTCDay counts from Sunday, WEEKDAYS from Monday
    const weekday = WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7]!;
    for (const range of hours.days[weekday]) {
      const rangeEnd = day + minutesOf(range.to) * MINUTE_MS;
      for (let wall = day + minutesOf(range.from) * MINUTE_MS; wall + slotMs <= rangeEnd; wall += slotMs) {
        const start = instantOfWallTime(zone, wall);
        const end = instantOfWallTime(zone, wall + slotMs);
        // the DST checks: both wall times exist, and the slot lasts what it says
        if (end - start !== slotMs || wallClockMs(zone, start) !== wall || wallClockMs(zone, end) !== wall + slotMs)
          continue;
        if (start < earliest || end > to) continue;
        if (overlapsBusy(start, end)) continue;
        slots.push({ start: new Date(start).toISOString(), end: new Date(end).toISOString() });
        if (slots.length >= limit) break;
      }
      if (slots.length >= limit) break;
    }
  }
  return slots;
}

/** "HH:MM" as minutes of the day (24:00 is 1440) */
function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

function startOfDay(wall: number): number {
  return wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
}
