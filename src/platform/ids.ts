import { v7 as uuidv7 } from 'uuid';

/** Opaque, time-ordered ids (UUIDv7): sortable, unguessable enough for URLs, no counter to leak. */
export function newId(): string {
  return uuidv7();
}
