import type { WidgetContext } from './context.js';
import { fromTrustedMarkup, h, ICON_DOWN, ICON_UP } from './dom.js';
import type { StoredMessage } from './storage.js';

/** Thumbs up and down under an answer the server stored; pressing the pressed one clears it. */
export function feedbackRow(ctx: WidgetContext, m: StoredMessage): HTMLDivElement {
  const t = ctx.t;
  const row = h('div', { class: 'feedback' });
  const buttons: Array<[1 | -1, HTMLButtonElement]> = [
    [
      1,
      h('button', { type: 'button', class: 'thumb up', 'aria-label': t.feedback_up, title: t.feedback_up }, [
        fromTrustedMarkup(ICON_UP),
      ]),
    ],
    [
      -1,
      h('button', { type: 'button', class: 'thumb down', 'aria-label': t.feedback_down, title: t.feedback_down }, [
        fromTrustedMarkup(ICON_DOWN),
      ]),
    ],
  ];
  const paint = () => {
    for (const [v, b] of buttons) b.setAttribute('aria-pressed', String(m.feedback === v));
  };
  for (const [v, b] of buttons) {
    b.addEventListener('click', async () => {
      const next = m.feedback === v ? 0 : v;
      for (const [, x] of buttons) x.disabled = true;
      try {
        await ctx.api.feedback({ session_id: ctx.state.session_id, message_id: m.id!, value: next });
        if (next === 0) delete m.feedback;
        else m.feedback = next;
        ctx.save();
        paint();
      } catch (err) {
        ctx.showNotice(ctx.failure(err).text, null);
      } finally {
        for (const [, x] of buttons) x.disabled = false;
      }
    });
    row.append(b);
  }
  paint();
  return row;
}
