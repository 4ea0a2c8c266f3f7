import { ApiFailure, type AgentInfo } from './api.js';
import type { WidgetContext } from './context.js';
import { h, httpUrl } from './dom.js';

export type LeadWhen = 'before' | 'after';

/**
 * The lead form (name and phone): asked before the chat, instead of the message box, or in the
 * conversation once the visitor has had enough answers (`after_messages`) or nobody took an
 * escalation in time. At most one is shown.
 */
export class LeadForm {
  private form: HTMLFormElement | null = null;
  /** where the lead form is: before the chat (instead of the message box) or in the conversation */
  private where: LeadWhen | null = null;

  constructor(
    private readonly ctx: WidgetContext,
    private readonly shadow: ShadowRoot,
    /** the form asked before the chat was answered: the conversation and its message box take its place */
    private readonly answeredBefore: () => void,
  ) {}

  /** Where the form is shown now, if it is. */
  get when(): LeadWhen | null {
    return this.where;
  }

  /** The field that takes the focus when the window opens: the first one of a form asked before the chat. */
  get firstField(): HTMLInputElement | null {
    return this.where === 'before' ? (this.form?.querySelector('input') ?? null) : null;
  }

  /** Whether the lead form is still to be asked, and when: never, before the chat, or after answers. */
  timing(info: AgentInfo): LeadWhen | null {
    if (!info.lead_capture_enabled || this.ctx.state.lead_done || this.ctx.offline) return null;
    // a server from before the timing setting asked first
    return info.lead_form_timing === 'after_messages' ? 'after' : 'before';
  }

  /** No form shown (the conversation is drawn again). */
  reset(): void {
    this.form?.remove();
    this.form = null;
    this.where = null;
  }

  /** The form asked before the chat, put before `place` (the notice line, where the message box would be). */
  askBefore(info: AgentInfo, place: Element): void {
    place.before(this.show(info, 'before'));
  }

  /**
   * With the `after_messages` timing: the lead form at the end of the conversation once the
   * visitor has had N answers, unless they said "Not now" in this conversation. The message box
   * stays; the visitor can go on chatting without answering it.
   */
  askLater(info: AgentInfo): void {
    const state = this.ctx.state;
    if (this.form || this.timing(info) !== 'after' || state.lead_skipped) return;
    const after = Math.max(1, Math.floor(Number(info.lead_form_after_messages) || 1));
    if (state.answers < after) return;
    this.ctx.transcript.log.append(this.show(info, 'after'));
  }

  /** Nobody took the escalation in time: the form in the conversation, unless the visitor left their details. */
  askAfterTimeout(info: AgentInfo): void {
    if (this.ctx.state.lead_done || this.form) return;
    this.ctx.transcript.log.append(this.show(info, 'after'));
    this.ctx.transcript.scrollToEnd(true);
  }

  private show(info: AgentInfo, when: LeadWhen): HTMLFormElement {
    this.where = when;
    this.form = this.build(info, when);
    return this.form;
  }

  private build(info: AgentInfo, when: LeadWhen): HTMLFormElement {
    const { ctx } = this;
    const { t, more } = ctx;
    const later = when === 'after';
    const name = h('input', { name: 'name', type: 'text', required: '', maxlength: '100', autocomplete: 'name' });
    // a signed-in visitor's name as the site gave it (data-user-name): prefilled, still editable
    if (ctx.identity?.name) name.value = ctx.identity.name;
    const phone = h('input', {
      name: 'phone',
      type: 'tel',
      required: '',
      minlength: '3',
      maxlength: '50',
      autocomplete: 'tel',
    });
    const error = h('p', { class: 'err', role: 'alert' });
    // the owner's own words win; the language's default phrasing depends on when it is asked
    const own = (key: 'lead_intro' | 'lead_submit') => info.widget_texts?.[key]?.trim();
    const intro = own('lead_intro') || (later ? more.lead_intro_later : t.lead_intro);
    const submit = h('button', {
      type: 'submit',
      text: own('lead_submit') || (later ? more.lead_submit_later : t.lead_submit),
    });
    const introId = `lead-intro-${when}`;
    const consent = h('p', { class: 'consent', text: info.lead_consent_text?.trim() || t.lead_consent });
    const privacy = httpUrl(info.privacy_policy_url ?? null);
    if (privacy)
      consent.append(
        ' ',
        h('a', { href: privacy, target: '_blank', rel: 'noopener noreferrer', text: t.privacy_policy }),
      );
    const actions = h('div', { class: 'lead-actions' }, [submit]);
    const form = h('form', { class: `lead lead-${when}`, 'aria-labelledby': introId }, [
      h('p', { id: introId, text: intro }),
      h('label', {}, [t.lead_name, name]),
      h('label', {}, [t.lead_phone, phone]),
      error,
      consent,
      actions,
    ]);
    if (later) {
      const skip = h('button', { type: 'button', class: 'skip', text: t.lead_skip });
      skip.addEventListener('click', () => {
        // remembered for this conversation: a reload does not ask again, a new conversation does
        ctx.state.lead_skipped = true;
        ctx.save();
        this.drop();
      });
      actions.append(skip);
    }
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = { name: name.value.trim(), phone: phone.value.trim(), session_id: ctx.state.session_id };
      if (!body.name) return name.focus();
      if (body.phone.length < 3) {
        error.textContent = t.lead_phone_missing;
        return phone.focus();
      }
      submit.disabled = true;
      error.textContent = '';
      try {
        await ctx.api.lead(body);
        ctx.state.lead_done = true;
        ctx.state.user_name = body.name;
        ctx.save();
        if (later) {
          this.drop();
          ctx.transcript.log.append(h('p', { class: 'lead-thanks', role: 'status', text: more.lead_thanks }));
          ctx.transcript.scrollToEnd(false);
        } else {
          this.answeredBefore();
          ctx.focusInput();
        }
      } catch (err) {
        error.textContent = err instanceof ApiFailure && err.status === 429 ? ctx.failure(err).text : t.lead_failed;
        submit.disabled = false;
      }
    });
    return form;
  }

  /** The lead form asked in the conversation goes; the message box gets the focus back. */
  private drop(): void {
    const hadFocus = !!this.form?.contains(this.shadow.activeElement);
    this.reset();
    if (hadFocus) this.ctx.focusInput();
  }
}
