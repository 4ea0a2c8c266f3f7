import type { Clock } from '../../platform/clock.js';
import type { AppEvents } from '../../platform/events.js';
import {
  CalendarFeedError,
  DEFAULT_BOOKING_HOURS,
  fetchBusyTimes,
  freeSlots,
  invitationIcs,
  type Slot,
} from './booking-calendar.js';
import type { ActionRunner } from './runner.js';
import type { ActionCard, BookingChoice, BookingRunner, FinishOutcome, RunContext } from './runner-types.js';
import type { ActionRow, ActionRunRow } from './tables.js';

/** free times offered on one card */
const SLOTS_SHOWN = 20;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface BookingDeps {
  clock: Clock;
  events: AppEvents;
  allowPrivateUrls: boolean;
  timeoutMs: number;
  /** the leads module: the booking's lead, and the invitation queued with it (one transaction) */
  leads: {
    captureWidgetLead(
      chatbotId: string,
      input: { name: string; phone: string; session_id?: string; email?: string },
    ): { id: string };
    queueInvitation(userId: string, to: string, subject: string, body: string, ics: string): void;
  };
  /** the account's own address: the invitation's organizer */
  accountEmail: (userId: string) => string;
  transaction: <T>(fn: () => T) => T;
}

/**
 * "Book a time" (docs/ACTIONS.md): free slots from the owner's calendar feed within the agent's
 * office hours (Mon-Fri 09-17 UTC without them); the visitor picks one and confirms; the slot is
 * checked free again against the feed, then the booking is a lead of the conversation, an .ics
 * invitation queued to the visitor, an `action.run` and a `booking.created` event, in one transaction.
 */
export function bookingRunner(runner: ActionRunner, deps: BookingDeps): BookingRunner {
  async function slotsFor(ctx: RunContext, action: ActionRow): Promise<Slot[] | string> {
    const now = deps.clock.now();
    const to = new Date(now.getTime() + action.days_ahead * 86_400_000);
    const hours = ctx.agent.office_hours ?? null;
    try {
      const busy = await fetchBusyTimes({
        url: action.calendar_url ?? '',
        allowPrivateUrls: deps.allowPrivateUrls,
        timeoutMs: deps.timeoutMs,
        from: now,
        to,
        timeZone: (hours ?? DEFAULT_BOOKING_HOURS).time_zone,
        signal: ctx.signal,
      });
      return freeSlots({ busy, officeHours: hours, slotMinutes: action.slot_minutes, from: now, to, now });
    } catch (err) {
      if (err instanceof CalendarFeedError)
        return `The calendar could not be read (${err.message.replace(/\.$/, '')}); no time can be booked now.`;
      throw err;
    }
  }

  return {
    async offer(ctx, action, run): Promise<ActionCard | string> {
      const slots = await slotsFor(ctx, action);
      if (typeof slots === 'string') return slots;
      if (!slots.length) return `There is no free time in the next ${action.days_ahead} days.`;
      return {
        run_id: run.id,
        action_name: action.name,
        type: 'booking',
        description: action.description,
        inputs: {},
        sends: null,
        slots: slots.slice(0, SLOTS_SHOWN),
        time_zone: (ctx.agent.office_hours ?? DEFAULT_BOOKING_HOURS).time_zone,
        needs_email: !ctx.visitor?.email,
      };
    },

    async book(ctx, action, run, choice: BookingChoice): Promise<FinishOutcome> {
      // what the visitor must fix leaves the card usable: nothing is claimed before it is right
      const email = ctx.visitor?.email ?? choice.email?.trim();
      if (!choice.start) return { run, message: 'Please pick a time first.' };
      if (!email || !EMAIL.test(email) || email.length > 254)
        return { run, message: 'An e-mail address is needed for the invitation.' };
      const slots = await slotsFor(ctx, action);
      if (typeof slots === 'string') return { run, message: slots };
      const slot = slots.find((s) => s.start === choice.start);
      if (!slot) return { run, message: 'That time is no longer free; please pick another.' };
      const name = (ctx.visitor?.name ?? choice.name ?? '').trim().slice(0, 100) || email;
      const timeZone = (ctx.agent.office_hours ?? DEFAULT_BOOKING_HOURS).time_zone;
      const when = describeSlot(slot, timeZone);
      return deps.transaction(() => {
        const claimed = runner.claimForBooking(run.id);
        if (!claimed) return runner.settledOutcome(run.id, ctx.agent.id);
        const lead = deps.leads.captureWidgetLead(ctx.agent.id, {
          name,
          phone: '',
          email,
          session_id: ctx.sessionId,
        });
        const ics = invitationIcs({
          id: run.id,
          start: new Date(slot.start),
          end: new Date(slot.end),
          summary: `${action.description} (${ctx.agent.name})`,
          organizer: { name: ctx.agent.name, email: deps.accountEmail(ctx.agent.user_id) },
          attendee: { name, email },
          timeZone,
          now: deps.clock.now(),
        });
        deps.leads.queueInvitation(
          ctx.agent.user_id,
          email,
          `Booked: ${when}`,
          `Hello ${name},\n\nyour time with ${ctx.agent.name} is booked: ${when}.\nThe invitation is attached.\n`,
          ics,
        );
        deps.events.emit('booking.created', {
          account_id: ctx.agent.user_id,
          chatbot_id: ctx.agent.id,
          conversation_id: ctx.conversationId,
          booking: {
            run_id: run.id,
            action_name: action.name,
            start: slot.start,
            end: slot.end,
            lead_id: lead.id,
            email,
            name,
          },
        });
        const done: ActionRunRow = runner.finish(ctx, run, {
          status: 'succeeded',
          outcome: `Booked ${when} for ${email}.`,
          result: JSON.stringify({ start: slot.start, end: slot.end, lead_id: lead.id }),
        });
        return { run: done, message: `Booked: ${when}. An invitation is on its way to ${email}.` };
      });
    },
  };
}

/** "Tue 3 Dec, 10:00-10:30 (Europe/Berlin)" */
export function describeSlot(slot: Slot, timeZone: string): string {
  const day = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short' });
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hour12: false });
  const start = new Date(slot.start);
  return `${day.format(start)}, ${time.format(start)}-${time.format(new Date(slot.end))} (${timeZone})`;
}
