import type { ActionCard, ActionSettled } from './api.js';
import type { WidgetContext } from './context.js';
import { h } from './dom.js';
import { fill, type MoreKey } from './i18n.js';
import type { StoredMessage } from './storage.js';

/** What the card says once the run has ended, by the run's status. */
const ENDED: Record<string, MoreKey> = {
  succeeded: 'action_done',
  failed: 'action_not_done',
  cancelled: 'action_cancelled',
  expired: 'action_expired',
  running: 'action_running',
};

/**
 * An agent's message at the end of the transcript, stored like an answer (with its id: the thumbs),
 * with the card of an action waiting for the visitor under it.
 */
export function addAgentMessage(
  ctx: WidgetContext,
  content: string,
  id: string | null | undefined,
  action?: ActionCard | null,
): void {
  if (!content && !action) return;
  const stored: StoredMessage = { role: 'assistant', content, ...(typeof id === 'string' && id ? { id } : {}) };
  if (action) stored.action = action;
  ctx.state.messages.push(stored);
  ctx.save();
  const stick = ctx.transcript.nearBottom();
  ctx.transcript.addMessage(stored);
  if (stick) ctx.transcript.scrollToEnd(true);
}

/**
 * The card under the agent's message for an action that waits for the visitor (docs/ACTIONS.md):
 * a `do` shows what it will send; a booking its free times (in the visitor's locale, in the
 * card's time zone) and, when no address is known, an e-mail field. Confirm runs it once, Cancel
 * ends it. While a request runs its buttons are disabled; a choice the server sends back to be
 * fixed (no e-mail, the time taken meanwhile) leaves the card usable with the server's sentence;
 * any other answer is the agent's next message, and the card then only says how it ended.
 * Everything from the server is set as text.
 */
export function actionCard(ctx: WidgetContext, card: ActionCard, stored: StoredMessage): HTMLFormElement {
  const { more } = ctx;
  const booking = card.type === 'booking';
  const title = str(card.description) || str(card.action_name);
  const form = h('form', {
    class: `action-card action-${booking ? 'booking' : 'do'}`,
    role: 'group',
    'aria-label': fill(booking ? more.booking_card : more.action_card, { name: title }),
  });
  form.append(h('p', { class: 'action-title', text: title }));

  let email: HTMLInputElement | null = null;
  let name: HTMLInputElement | null = null;
  if (booking) {
    form.append(slotPicker(ctx, card));
    if (card.needs_email) {
      email = h('input', { type: 'email', name: 'email', required: '', maxlength: '254', autocomplete: 'email' });
      if (ctx.identity?.email) email.value = ctx.identity.email;
      name = h('input', { type: 'text', name: 'name', maxlength: '100', autocomplete: 'name' });
      name.value = ctx.identity?.name ?? ctx.state.user_name ?? '';
      form.append(h('label', {}, [more.booking_email, email]), h('label', {}, [more.booking_name, name]));
    }
  } else {
    const inputs = Object.entries(card.inputs && typeof card.inputs === 'object' ? card.inputs : {}).filter(
      ([, v]) => typeof v === 'string',
    );
    if (inputs.length) {
      const list = h('dl', { class: 'action-inputs' });
      for (const [k, v] of inputs) list.append(h('dt', { text: k }), h('dd', { text: v }));
      form.append(list);
    }
    if (str(card.sends))
      form.append(h('p', { class: 'action-sends', text: fill(more.action_sends, { request: card.sends! }) }));
  }

  const status = h('p', { class: 'action-status', role: 'status' });
  const confirm = h('button', { type: 'submit', class: 'action-confirm', text: more.action_confirm });
  const cancel = h('button', { type: 'button', class: 'action-cancel', text: more.action_cancel });
  const buttons = h('div', { class: 'card-buttons' }, [confirm, cancel]);
  form.append(status, buttons);

  let busy = false;
  const setBusy = (on: boolean) => {
    busy = on;
    confirm.disabled = on;
    cancel.disabled = on;
    form.setAttribute('aria-busy', String(on));
  };
  /** no longer actionable: how it ended in a word (the agent's message below says what happened) */
  const showEnded = (runStatus: string) => {
    buttons.remove();
    for (const input of form.querySelectorAll('input')) input.disabled = true;
    form.classList.add('ended');
    form.removeAttribute('aria-busy');
    const key = ENDED[runStatus];
    status.textContent = key ? more[key] : '';
  };
  if (typeof stored.action_status === 'string') showEnded(stored.action_status);
  const ended = (done: ActionSettled) => {
    const hadFocus = form.contains((form.getRootNode() as Document | ShadowRoot).activeElement);
    const runStatus = str(done.run?.status) || 'failed';
    showEnded(runStatus);
    stored.action_status = runStatus;
    ctx.save();
    addAgentMessage(ctx, str(done.message), done.message_id);
    if (hadFocus) ctx.focusInput();
  };
  const settle = async (answer: 'confirm' | 'cancel') => {
    if (busy) return;
    const body: { session_id: string; start?: string; email?: string; name?: string } = {
      session_id: ctx.state.session_id,
    };
    if (answer === 'confirm' && booking) {
      const picked = form.querySelector<HTMLInputElement>('input[type="radio"]:checked');
      if (picked) body.start = picked.value;
      if (email?.value.trim()) body.email = email.value.trim();
      if (name?.value.trim()) body.name = name.value.trim();
    }
    setBusy(true);
    status.textContent = '';
    try {
      const done = await ctx.api.settleAction(card.run_id, answer, body);
      if (done.run?.status === 'awaiting_confirmation') {
        // the choice must be fixed: the server's sentence, the card still usable
        status.textContent = str(done.message);
        setBusy(false);
      } else ended(done);
    } catch (err) {
      status.textContent = ctx.failure(err).text;
      setBusy(false);
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void settle('confirm');
  });
  cancel.addEventListener('click', () => void settle('cancel'));
  return form;
}

/** A booking's free times as radio buttons, one group per card, labelled in the visitor's locale and the card's zone. */
function slotPicker(ctx: WidgetContext, card: ActionCard): HTMLFieldSetElement {
  const zone = str(card.time_zone);
  const { day, time } = formats(ctx.locale, zone);
  const picker = h('fieldset', { class: 'action-slots' }, [
    h('legend', { text: fill(ctx.more.booking_slots, { zone: zone || 'UTC' }) }),
  ]);
  const group = `slot-${str(card.run_id)}`;
  for (const slot of Array.isArray(card.slots) ? card.slots : []) {
    const start = new Date(str(slot?.start));
    const end = new Date(str(slot?.end));
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) continue;
    const radio = h('input', { type: 'radio', name: group, value: slot.start, required: '' });
    picker.append(h('label', { class: 'slot' }, [radio, `${day.format(start)} – ${time.format(end)}`]));
  }
  return picker;
}

/** The slot's day and start time, and its end time; in the visitor's zone when the card's is unknown here. */
function formats(locale: string, zone: string): { day: Intl.DateTimeFormat; time: Intl.DateTimeFormat } {
  const make = (timeZone: string | undefined) => ({
    day: new Intl.DateTimeFormat(locale, {
      timeZone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
    }),
    time: new Intl.DateTimeFormat(locale, { timeZone, hour: '2-digit', minute: '2-digit' }),
  });
  try {
    return make(zone || 'UTC');
  } catch {
    return make(undefined); // a zone this browser does not know
  }
}

/** A card as the server sends it, or as stored in localStorage (where a page script could have put anything). */
export function isActionCard(v: unknown): v is ActionCard {
  const c = v as ActionCard | null;
  return (
    !!c &&
    typeof c === 'object' &&
    typeof c.run_id === 'string' &&
    !!c.run_id &&
    (c.type === 'do' || c.type === 'booking') &&
    (c.type === 'do' || Array.isArray(c.slots))
  );
}

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
