import {
  alwaysRemoved,
  BLOCK,
  type DomNode,
  HEADING_LEVEL,
  HOLDS_BLOCK,
  HOLDS_H1,
  HOLDS_HEADING,
  HOLDS_TABLE,
  isElement,
  type Stats,
  walk,
} from './html-dom.js';

export interface Survey {
  hrefs: string[];
  baseHref?: string;
  title?: string;
  h1?: string;
  main?: DomNode;
  roleMain?: DomNode;
  article?: DomNode;
  body?: DomNode;
}

/** The first walk: links, base, title, content root candidates, and per-element statistics. */
export function surveyPage(document: DomNode): Survey {
  const survey: Survey = { hrefs: [] };
  const open: Stats[] = [];
  let removedDepth = 0; // inside (or at) an always-removed element
  let foreignDepth = 0; // inside an svg or math element, whose <title> is not the page's
  let linkDepth = 0;
  let title: { el: DomNode; parts: string[] } | undefined;
  let h1: { el: DomNode; parts: string[] } | undefined;

  walk(
    document,
    (node) => {
      if (node.type === 'text') {
        const text = node.data ?? '';
        const chars = nonSpaceLength(text);
        const top = open[open.length - 1];
        if (top) {
          top.chars += chars;
          if (linkDepth) top.linkChars += chars;
        }
        title?.parts.push(text);
        if (removedDepth === 0) h1?.parts.push(text);
        return false;
      }
      if (node.type === 'root') return true;
      if (!isElement(node)) return false; // comments, doctype, CDATA
      const name = node.name!;
      const a = node.attribs ?? {};
      const stats: Stats = { chars: 0, linkChars: 0, links: 0, holds: 0, removed: alwaysRemoved(node) };
      node.stats = stats;
      open.push(stats);
      if (stats.removed) removedDepth++;
      if (name === 'svg' || name === 'math') foreignDepth++;
      // links come from the whole page, menus and hidden parts included: they lead the crawler on
      if (name === 'a') {
        linkDepth++;
        if (a.href !== undefined) {
          stats.links = 1;
          if (!(a.rel ?? '').toLowerCase().split(/\s+/).includes('nofollow')) survey.hrefs.push(a.href);
        }
      } else if (name === 'base' && a.href !== undefined) survey.baseHref ??= a.href;
      else if (name === 'title' && foreignDepth === 0 && survey.title === undefined) title ??= { el: node, parts: [] };
      if (removedDepth === 0) {
        if (name === 'h1' && survey.h1 === undefined) h1 ??= { el: node, parts: [] };
        else if (name === 'main') survey.main ??= node;
        else if (name === 'article') survey.article ??= node;
        else if (name === 'body') survey.body ??= node;
        if (a.role?.toLowerCase() === 'main') survey.roleMain ??= node;
      }
      return true;
    },
    (node) => {
      if (node.type === 'root') return;
      const name = node.name!;
      const stats = open.pop()!;
      if (stats.removed) removedDepth--;
      if (name === 'svg' || name === 'math') foreignDepth--;
      if (name === 'a') linkDepth--;
      if (title?.el === node) {
        survey.title = title.parts.join('');
        title = undefined;
      }
      if (h1?.el === node) {
        survey.h1 = h1.parts.join('');
        h1 = undefined;
      }
      const parent = open[open.length - 1];
      if (!parent || stats.removed) return;
      parent.chars += stats.chars;
      parent.linkChars += stats.linkChars;
      parent.links += stats.links;
      parent.holds |= stats.holds | holdsFlag(name);
    },
  );
  return survey;
}

function holdsFlag(name: string): number {
  if (name === 'h1') return HOLDS_H1 | HOLDS_HEADING;
  if (HEADING_LEVEL[name]) return HOLDS_HEADING;
  if (name === 'table') return HOLDS_TABLE | HOLDS_BLOCK;
  return BLOCK.has(name) ? HOLDS_BLOCK : 0;
}

function nonSpaceLength(text: string): number {
  return text.replace(/\s+/g, '').length;
}

export function resolveLinks(hrefs: string[], baseHref: string | undefined, url: string): string[] {
  const pageUrl = absoluteUrl(url, undefined);
  if (!pageUrl) return [];
  const base = (baseHref !== undefined && absoluteUrl(baseHref, pageUrl)) || pageUrl;
  const links = new Set<string>();
  for (const href of new Set(hrefs)) {
    const link = absoluteUrl(href, base);
    if (link) links.add(link);
  }
  return [...links];
}

/** `href` resolved against `base`, without its fragment; undefined unless it is http(s) */
function absoluteUrl(href: string, base: string | undefined): string | undefined {
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    return u.toString();
  } catch {
    return undefined;
  }
}
