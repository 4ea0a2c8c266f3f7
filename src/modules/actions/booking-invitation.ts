import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';

export interface InvitationInput {
  /** the booking's id: the event's UID is made from it, so a later update or cancellation names the same event */
  id: string;
  start: Date;
  end: Date;
  summary: string;
  description?: string;
  /** the agent's owner (who the invitation is from) */
  organizer: { name: string; email: string };
  /** the visitor who booked */
  attendee: { name?: string; email: string };
  /** the office hours' zone: a hint for the calendar that shows it (X-WR-TIMEZONE) */
  timeZone: string;
  /** DTSTAMP; default the current time */
  now?: Date;
}

/** The event's UID for a booking id (stable: the same id gives the same UID). */
export function bookingUid(id: string): string {
  return `booking-${id}@chat-agent`;
}

/**
 * An iCalendar invitation (METHOD:REQUEST) for one booked slot, to attach to the e-mail
 * (text/calendar; method=REQUEST). Times are written in UTC (DTSTART:...Z), which every calendar
 * reads the same and which needs no VTIMEZONE block; the viewer's calendar shows them in its own
 * zone.
 */
export function invitationIcs(input: InvitationInput): string {
  const calendar = ical({
    prodId: { company: 'chat-agent', product: 'booking', language: 'EN' },
    method: ICalCalendarMethod.REQUEST,
  });
  calendar.x('X-WR-TIMEZONE', input.timeZone);
  calendar.createEvent({
    id: bookingUid(input.id),
    sequence: 0,
    stamp: input.now ?? new Date(),
    start: input.start,
    end: input.end,
    summary: input.summary,
    description: input.description ?? null,
    status: ICalEventStatus.CONFIRMED,
    organizer: { name: input.organizer.name, email: input.organizer.email },
    attendees: [
      {
        name: input.attendee.name,
        email: input.attendee.email,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.NEEDSACTION,
        rsvp: true,
      },
    ],
  });
  return calendar.toString();
}
