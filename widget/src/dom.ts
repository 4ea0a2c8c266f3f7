import { safeHref } from './markdown.js';

/** The widget's DOM helpers and icons, shared by its parts (ui.ts and the files it composes). */

export const ICON_CHAT =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>';
export const ICON_CLOSE = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>';
export const ICON_RESTART =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 12a9 9 0 1 0 3-6.7L3 8"/><path d="M3 3v5h5"/></svg>';
export const ICON_UP =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 11v9H4v-9h3zm2 9h8.3a2 2 0 0 0 2-1.6l1.3-6.4A2 2 0 0 0 18.6 10H14V5.5A2.5 2.5 0 0 0 11.5 3L9 10v10z"/></svg>';
export const ICON_DOWN =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M17 13V4h3v9h-3zm-2-9H6.7a2 2 0 0 0-2 1.6L3.4 12A2 2 0 0 0 5.4 14H10v4.5a2.5 2.5 0 0 0 2.5 2.5L15 14V4z"/></svg>';
export const ICON_SEND =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 20.5L21 12 3 3.5 3 10l12 2-12 2z"/></svg>';

/** Builds elements from fixed markup we wrote (icons); never used with agent or model text. */
export function fromTrustedMarkup(html: string): Element {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content.firstElementChild!;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string> = {},
  children: Array<Node | string> = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

/** An http(s) address from the agent's settings or a source, or null. */
export function httpUrl(raw: string | null): string | null {
  if (!raw) return null;
  const href = safeHref(raw);
  return href && /^https?:/.test(href) ? href : null;
}
