/** The app's only source of "now", so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * "Now" as stored in the database: ISO 8601 in UTC with milliseconds. Every timestamp column holds
 * this form, so text comparison orders them and the first 10 characters are the UTC day.
 */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}
