import type { PersonMessage } from './api.js';
import type { WidgetContext } from './context.js';
import { h } from './dom.js';
import type { StoredMessage } from './storage.js';

/** What the live handoff asks of the widget around it. */
export interface HandoffHost {
  /** the message box: "Talk to a person" goes just above it */
  readonly composer: HTMLElement;
  /** the lead form is asked before the chat: no "Talk to a person" yet */
  leadFirst(): boolean;
  /** a person's message came in: the closed launcher says so */
  received(): void;
  /** nobody took the escalation in time, or nobody can come now: the lead form */
  timedOut(): void;
}

/**
 * Live handoff, the visitor's side: the "Talk to a person" button, the escalation it asks for,
 * and the conversation's live stream, on which a person's messages and the handoff's changes
 * (escalated, taken, handed back, timed out) arrive; each change is a note in the transcript.
 */
export class LiveHandoff {
  /** the session's live stream, open once the conversation has begun */
  private live: EventSource | null = null;
  /** "Talk to a person", once the conversation has begun */
  private readonly askPerson: HTMLButtonElement;

  constructor(
    private readonly ctx: WidgetContext,
    private readonly host: HandoffHost,
  ) {
    this.askPerson = h('button', { class: 'ask-person', type: 'button', text: ctx.t.ask_person });
    this.askPerson.addEventListener('click', () => void this.escalate());
  }

  /**
   * The live stream of this conversation (live handoff): a person's messages and the handoff's
   * changes arrive here. Opened once the conversation exists at the server (its first message),
   * whether the window is open or not, so a person's reply is there the moment it is sent; the
   * browser reconnects by itself, and `ready` repeats what a reconnect or a reload missed. A 404
   * (the conversation is gone) closes it; the next message opens it again.
   */
  connect(): void {
    const ctx = this.ctx;
    if (
      this.live ||
      ctx.offline ||
      typeof EventSource !== 'function' ||
      !ctx.state.messages.some((m) => m.role === 'user')
    )
      return;
    const session = ctx.state.session_id;
    const source = new EventSource(ctx.api.eventsUrl(session));
    this.live = source;
    const data = (e: Event): Record<string, unknown> | null => {
      if (session !== ctx.state.session_id) return null; // a restarted conversation's late event
      try {
        const parsed: unknown = JSON.parse((e as MessageEvent<string>).data);
        return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    };
    source.addEventListener('ready', (e) => {
      const d = data(e);
      if (!d) return;
      // escalated while nobody can come: the `handoff_unavailable` that follows says so instead
      if (d.status === 'escalated' && d.handoff_unavailable !== true) this.markEscalated();
      this.setPerson(d.handled_by === 'person');
      if (Array.isArray(d.messages)) for (const m of d.messages) this.receive(m as PersonMessage);
    });
    source.addEventListener('message', (e) => {
      const d = data(e);
      if (d) this.receive(d as unknown as PersonMessage);
    });
    source.addEventListener('status', (e) => {
      const d = data(e);
      if (!d) return;
      if (d.status === 'escalated') this.markEscalated();
      else if (d.status === 'taken') this.setPerson(true);
      else if (d.status === 'handed_back') this.setPerson(false);
      else if (d.status === 'handoff_timeout') this.timedOut();
      else if (d.status === 'handoff_unavailable')
        this.unavailable(typeof d.next_opening === 'string' ? d.next_opening : null);
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED && this.live === source) this.live = null;
    });
  }

  disconnect(): void {
    this.live?.close();
    this.live = null;
  }

  /** The conversation is escalated: by the visitor's button, or by the agent's keywords. */
  private markEscalated(): void {
    const state = this.ctx.state;
    if (state.escalated) return;
    state.escalated = true;
    this.ctx.transcript.addNote('asked_person');
    this.update();
  }

  /** A person took the conversation over, or handed it back to the agent: said once per change. */
  setPerson(on: boolean): void {
    const state = this.ctx.state;
    if (!!state.person === on) return;
    state.person = on;
    if (on)
      state.handoff_told = true; // someone came: the timeout's offer no longer applies
    else {
      // handing back ends the escalation (the server's too): the visitor may ask for a person again
      state.escalated = false;
      state.handoff_told = false;
    }
    this.ctx.transcript.addNote(on ? 'person_joined' : 'person_left');
    this.update();
  }

  /** Nobody took the escalation in time: said once, with the lead form unless the visitor left their details. */
  private timedOut(): void {
    const state = this.ctx.state;
    if (state.handoff_told || state.person) return;
    state.handoff_told = true;
    this.ctx.transcript.addNote('handoff_timeout');
    this.host.timedOut();
  }

  /**
   * Nobody can come now (outside the office hours, or everyone away): said at once, with when the
   * office hours open next and the lead form, instead of waiting for a timeout. Once per escalation.
   */
  private unavailable(nextOpening: string | null): void {
    const state = this.ctx.state;
    if (state.handoff_told || state.person) return;
    state.escalated = true;
    state.handoff_told = true;
    this.ctx.transcript.addNote('handoff_closed', nextOpening ?? undefined);
    this.update();
    this.host.timedOut();
  }

  /** A person's message from the stream: shown once (`ready` repeats the latest ones). */
  private receive(m: PersonMessage): void {
    const { state, transcript } = this.ctx;
    if (!m || typeof m.id !== 'string' || !m.id || typeof m.content !== 'string' || m.from_person !== true) return;
    if (state.messages.some((x) => x.id === m.id)) return;
    const stored: StoredMessage = { role: 'assistant', content: m.content, id: m.id, from_person: true };
    if (typeof m.sender_name === 'string' && m.sender_name.trim())
      stored.sender_name = m.sender_name.trim().slice(0, 100);
    state.messages.push(stored);
    this.ctx.save();
    const stick = transcript.nearBottom();
    transcript.addMessage(stored);
    if (stick) transcript.scrollToEnd(true);
    this.host.received();
  }

  /** "Talk to a person": shown once the conversation has begun, until the visitor has asked. */
  update(): void {
    const state = this.ctx.state;
    const show =
      !this.ctx.offline && !state.escalated && !state.person && state.messages.length > 0 && !this.host.leadFirst();
    if (show && !this.askPerson.isConnected) this.host.composer.before(this.askPerson);
    else if (!show) this.askPerson.remove();
  }

  private async escalate(): Promise<void> {
    const ctx = this.ctx;
    this.askPerson.disabled = true;
    try {
      const handoff = await ctx.api.escalate({ session_id: ctx.state.session_id });
      if (handoff.available) {
        this.markEscalated();
        ctx.focusInput();
      } else this.unavailable(handoff.next_opening);
      ctx.transcript.scrollToEnd(true);
      this.connect();
    } catch (err) {
      ctx.showNotice(ctx.failure(err).text, null);
    } finally {
      this.askPerson.disabled = false;
    }
  }
}
