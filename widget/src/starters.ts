import type { AgentInfo } from './api.js';
import type { WidgetContext } from './context.js';
import { h } from './dom.js';

/** The owner's starter questions as buttons, while the conversation has no message yet. */
export class Starters {
  private buttons: HTMLDivElement | null = null;

  constructor(
    private readonly ctx: WidgetContext,
    /** a question was picked: asked as if typed */
    private readonly ask: (question: string) => void,
  ) {}

  /** Shown at the end of the transcript unless there are messages already, or the lead form comes first. */
  show(info: AgentInfo, leadFirst: boolean): void {
    this.remove();
    const questions = (Array.isArray(info.starter_questions) ? info.starter_questions : [])
      .filter((q) => typeof q === 'string' && q.trim())
      .slice(0, 6);
    if (!questions.length || this.ctx.state.messages.length || this.ctx.offline || leadFirst) return;
    this.buttons = h('div', { class: 'starters' });
    for (const q of questions) {
      const button = h('button', { type: 'button', text: q.trim() });
      button.addEventListener('click', () => this.ask(q.trim()));
      this.buttons.append(button);
    }
    this.ctx.transcript.log.append(this.buttons);
  }

  remove(): void {
    this.buttons?.remove();
    this.buttons = null;
  }
}
