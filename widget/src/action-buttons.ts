import { addAgentMessage, isActionCard } from './action-card.js';
import type { ChatAnswer, PublicAction } from './api.js';
import type { WidgetContext } from './context.js';
import { h } from './dom.js';

/**
 * The agent's actions as buttons, under the conversation, when the server has no model to call
 * them (no provider key): a look-up answers at once, a `do` or a booking with its card. An action
 * with parameters opens a small form in the conversation first (one labelled field each). Actions
 * only for signed-in visitors are left out for a visitor the site did not sign in.
 */
export class ActionButtons {
  private actions: PublicAction[] = [];
  private bar: HTMLDivElement | null = null;
  private form: HTMLFormElement | null = null;
  private busy = false;

  constructor(
    private readonly ctx: WidgetContext,
    /** an action was started: the server's answer (its session, the live stream, the starters) */
    private readonly answered: (answer: ChatAnswer) => void,
  ) {}

  /** Asks the server once which actions to show; none when it calls them itself, or cannot be asked. */
  async load(): Promise<void> {
    try {
      const { buttons, actions } = await this.ctx.api.actions();
      if (!buttons || !Array.isArray(actions)) return;
      this.actions = actions.filter(
        (a) =>
          a &&
          typeof a.id === 'string' &&
          typeof a.description === 'string' &&
          a.description.trim() &&
          Array.isArray(a.parameters) &&
          (!a.requires_verified || this.ctx.identity),
      );
    } catch {
      // no buttons: the chat works as ever
    }
  }

  /** The buttons before `place` (the line under the conversation), unless `hidden` (the lead form comes first). */
  show(place: Element, hidden: boolean): void {
    this.remove();
    if (!this.actions.length || hidden || this.ctx.offline) return;
    this.bar = h('div', { class: 'action-buttons', role: 'group', 'aria-label': this.ctx.more.actions });
    for (const action of this.actions) {
      const button = h('button', { type: 'button', text: action.description.trim() });
      button.addEventListener('click', () => this.pick(action));
      this.bar.append(button);
    }
    place.before(this.bar);
  }

  remove(): void {
    this.bar?.remove();
    this.bar = null;
    this.form?.remove();
    this.form = null;
  }

  private pick(action: PublicAction): void {
    if (this.busy) return;
    this.form?.remove();
    this.form = null;
    if (!action.parameters.length) {
      void this.start(action, {}, null);
      return;
    }
    const { more } = this.ctx;
    const fields = action.parameters.map((p) => {
      const input = h('input', { type: 'text', name: p.name, maxlength: '500' });
      if (p.required) input.required = true;
      const label = p.description.trim() || p.name;
      return {
        name: p.name,
        input,
        label: h('label', {}, [p.required ? label : `${label} (${more.action_optional})`, input]),
      };
    });
    const error = h('p', { class: 'err', role: 'alert' });
    const submit = h('button', { type: 'submit', text: more.action_start });
    const cancel = h('button', { type: 'button', class: 'skip', text: more.action_cancel });
    const form = h('form', { class: 'action-form', 'aria-label': action.description.trim() }, [
      h('p', { class: 'action-title', text: action.description.trim() }),
      ...fields.map((f) => f.label),
      error,
      h('div', { class: 'card-buttons' }, [submit, cancel]),
    ]);
    cancel.addEventListener('click', () => {
      form.remove();
      if (this.form === form) this.form = null;
      this.ctx.focusInput();
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const inputs: Record<string, string> = {};
      for (const f of fields) if (f.input.value.trim()) inputs[f.name] = f.input.value.trim();
      void this.start(action, inputs, { form, submit, error });
    });
    this.form = form;
    this.ctx.transcript.log.append(form);
    this.ctx.transcript.scrollToEnd(true);
    fields[0]?.input.focus({ preventScroll: true });
  }

  /** Starts the action; the visitor's request and the agent's answer (and card) join the conversation. */
  private async start(
    action: PublicAction,
    inputs: Record<string, string>,
    shown: { form: HTMLFormElement; submit: HTMLButtonElement; error: HTMLParagraphElement } | null,
  ): Promise<void> {
    const { ctx } = this;
    const { transcript } = ctx;
    this.busy = true;
    if (shown) {
      shown.submit.disabled = true;
      shown.error.textContent = '';
    }
    transcript.log.setAttribute('aria-busy', 'true');
    const typing = transcript.typing();
    transcript.scrollToEnd(true);
    try {
      const answer = await ctx.api.startAction(action.id, {
        session_id: ctx.state.session_id,
        inputs,
        ...(ctx.identity ? { user: ctx.identity } : {}),
      });
      typing.remove();
      const hadFocus = !!shown?.form.contains((shown.form.getRootNode() as Document | ShadowRoot).activeElement);
      shown?.form.remove();
      if (this.form === shown?.form) this.form = null;
      // the visitor's side of it, as the server stored it: what they asked for, with what they gave
      const given = Object.entries(inputs).map(([k, v]) => `${k}: ${v}`);
      const asked = given.length ? `${action.description.trim()} (${given.join(', ')})` : action.description.trim();
      ctx.state.messages.push({ role: 'user', content: asked });
      ctx.save();
      transcript.addMessage({ role: 'user', content: asked });
      this.answered(answer);
      if (answer.handled_by !== 'person')
        addAgentMessage(ctx, answer.message, answer.message_id, isActionCard(answer.action) ? answer.action : null);
      transcript.scrollToEnd(true);
      if (hadFocus) ctx.focusInput();
    } catch (err) {
      typing.remove();
      const text = ctx.failure(err).text;
      if (shown) shown.error.textContent = text;
      else ctx.showNotice(text, null);
    } finally {
      this.busy = false;
      if (shown) shown.submit.disabled = false;
      transcript.log.setAttribute('aria-busy', 'false');
    }
  }
}
