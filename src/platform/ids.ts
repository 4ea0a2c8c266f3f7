import { v7 as uuidv7 } from 'uuid';

/** Opaque, time-ordered ids (UUIDv7): sortable, unguessable enough for URLs, no counter to leak. */
export function newId(): string {
  return uuidv7();
}

/**
 * Request ids for the log: a random prefix per process start plus a counter. Unique across
 * restarts in practice, and far cheaper per request than a UUID (which draws random bytes).
 */
export function requestIds(): () => string {
  const prefix = newId().slice(-8);
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}
