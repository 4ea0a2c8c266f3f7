import { actionCard, isActionCard } from './action-card.js';
import type { CitedSource } from './api.js';
import type { WidgetContext } from './context.js';
import { h, httpUrl } from './dom.js';
import { feedbackRow } from './feedback.js';
import { fill } from './i18n.js';
import { renderMarkdown } from './markdown.js';
import { formatOpening } from './opening.js';
import type { NoteKey, StoredMessage } from './storage.js';

/**
 * The conversation as the visitor sees it: the message list (`log`, which scrolls by itself and
 * never moves the host page), its messages with their sources and thumbs, the notes about the
 * conversation ("a person has joined") and the typing indicator.
 */
export class Transcript {
  readonly log: HTMLDivElement;

  constructor(
    private readonly ctx: WidgetContext,
    /** the agent's avatar (http(s) only), shown beside each answer */
    private readonly avatarUrl: string | null,
  ) {
    this.log = h('div', {
      class: 'log',
      role: 'log',
      'aria-live': 'polite',
      'aria-label': ctx.more.messages,
      tabindex: '0',
    });
  }

  /** The welcome message, then the stored messages and notes, in place of whatever was shown. */
  render(welcome: string): void {
    const state = this.ctx.state;
    this.log.replaceChildren();
    this.addMessage({ role: 'assistant', content: welcome });
    for (const m of state.messages) {
      if (m.note) this.showNote(m.note, m.at);
      else this.addMessage(m);
    }
    // a transcript from before notes were kept: the escalation's line at the end, as it was shown
    if (state.escalated && !state.messages.some((m) => m.note === 'asked_person')) this.showNote('asked_person');
  }

  addMessage(m: StoredMessage): HTMLDivElement {
    const { t, more } = this.ctx;
    const bubble = h('div', { class: 'bubble' });
    const row = h('div', { class: `msg ${m.role}` });
    if (m.role === 'assistant') {
      if (this.avatarUrl)
        row.append(h('img', { class: 'avatar', src: this.avatarUrl, alt: '', referrerpolicy: 'no-referrer' }));
      renderMarkdown(bubble, m.content);
      if (m.sources?.length) bubble.append(this.sourcesList(m.sources));
    } else {
      bubble.textContent = m.content;
    }
    if (m.from_person) {
      row.classList.add('person');
      // the name the person chose (set as text: stored transcripts may hold anything), else "Team member"
      const name = typeof m.sender_name === 'string' && m.sender_name.trim() ? m.sender_name : t.person_label;
      bubble.prepend(h('span', { class: 'person-label', 'aria-hidden': 'true', text: name }));
    }
    row.prepend(
      h('span', {
        class: 'sr',
        text: m.role === 'user' ? more.you_said : m.from_person ? more.person_said : more.assistant_said,
      }),
    );
    row.append(bubble);
    this.log.append(row);
    if (m.role === 'assistant' && !m.from_person && typeof m.id === 'string' && m.id)
      this.log.append(feedbackRow(this.ctx, m));
    if (m.role === 'assistant' && isActionCard(m.action)) this.log.append(actionCard(this.ctx, m.action, m));
    return bubble;
  }

  /**
   * "Title, page N" for each place an answer comes from (the source's name when it has no title),
   * a link to the page when it is a web address. The sources may come from localStorage, where a
   * page script could have put anything: every field is checked, and all of it is set as text.
   */
  sourcesList(sources: CitedSource[]): HTMLElement {
    const list = h('ul');
    const seen = new Set<string>();
    for (const s of sources) {
      if (!s || typeof s !== 'object') continue;
      const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
      const url = str(s.url) || null;
      const page = typeof s.page === 'number' && Number.isInteger(s.page) && s.page > 0 ? s.page : null;
      // one entry per source and place (the server sends one per page; older answers one per source)
      const key = `${str(s.source_id)} ${url ?? ''} ${page ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const href = httpUrl(url);
      const label =
        (str(s.title) || str(s.name) || url || str(s.source_id)) +
        (page !== null ? `, ${fill(this.ctx.more.page, { n: page })}` : '');
      list.append(
        h('li', {}, [href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer', text: label }) : label]),
      );
    }
    return h('div', { class: 'sources' }, [h('span', { text: this.ctx.t.sources }), list]);
  }

  /** A note in the transcript, kept with the messages so a reload shows it in its place. */
  addNote(note: NoteKey, at?: string): void {
    this.ctx.state.messages.push({ role: 'assistant', content: '', note, ...(at ? { at } : {}) });
    this.ctx.save();
    this.showNote(note, at);
    this.scrollToEnd(false);
  }

  /** `at`: when the office hours open next, for `handoff_closed` (else, or unreadable, the timeout's sentence) */
  private showNote(note: NoteKey, at?: unknown): void {
    const when = note === 'handoff_closed' ? formatOpening(at, this.ctx.locale) : null;
    const text =
      note === 'handoff_closed'
        ? when
          ? fill(this.ctx.t.handoff_closed, { time: when })
          : this.ctx.t.handoff_timeout
        : this.ctx.t[note];
    this.log.append(h('p', { class: `note note-${note}`, role: 'status', text }));
  }

  /** The three dots while an answer is on its way; the caller removes them. */
  typing(): HTMLDivElement {
    const typing = h('div', { class: 'msg assistant' }, [
      h('div', { class: 'bubble typing', role: 'status', 'aria-label': this.ctx.more.typing }, [
        h('span'),
        h('span'),
        h('span'),
      ]),
    ]);
    this.log.append(typing);
    return typing;
  }

  nearBottom(): boolean {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 48;
  }

  /** Scrolls the message list only (never scrollIntoView, which would move the host page). */
  scrollToEnd(force: boolean): void {
    if (force || this.nearBottom()) this.log.scrollTop = this.log.scrollHeight;
  }
}
