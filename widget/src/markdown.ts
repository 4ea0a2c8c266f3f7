import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Model output to DOM, never through innerHTML: marked's lexer gives the token tree and every node
 * is built here, text always through text nodes. Links survive only as absolute http(s)/mailto
 * (opened in a new tab, no referrer, nofollow); images become a link to the image (no remote load
 * without a click); raw HTML is shown as the text it is.
 */

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** marked leaves character references in text; they are decoded here, so `&amp;` reads as `&`. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** The URL if it is an absolute http(s) or mailto address, else null (javascript:, data:, relative...). */
export function safeHref(raw: string): string | null {
  try {
    const url = new URL(decodeEntities(raw.trim()));
    return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, children: Node[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const c of children) node.appendChild(c);
  return node;
}

const text = (s: string) => document.createTextNode(s);

function link(href: string, children: Node[]): HTMLAnchorElement {
  const a = el('a', children);
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  return a;
}

function inline(tokens: Token[] | undefined): Node[] {
  const out: Node[] = [];
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'strong':
        out.push(el('strong', inline((t as Tokens.Strong).tokens)));
        break;
      case 'em':
        out.push(el('em', inline((t as Tokens.Em).tokens)));
        break;
      case 'del':
        out.push(el('del', inline((t as Tokens.Del).tokens)));
        break;
      case 'codespan':
        out.push(el('code', [text(decodeEntities((t as Tokens.Codespan).text))]));
        break;
      case 'br':
        out.push(el('br'));
        break;
      case 'link': {
        const l = t as Tokens.Link;
        const href = safeHref(l.href);
        const label = l.autolink ? [text(l.text)] : inline(l.tokens);
        out.push(href ? link(href, label) : el('span', label));
        break;
      }
      case 'image': {
        // never an <img>: a remote image would load (and could track) without the visitor asking
        const img = t as Tokens.Image;
        const href = safeHref(img.href);
        const label = text(decodeEntities(img.text || img.href));
        out.push(href && !href.startsWith('mailto:') ? link(href, [label]) : label);
        break;
      }
      case 'text': {
        const x = t as Tokens.Text;
        out.push(...(x.tokens ? inline(x.tokens) : [text(decodeEntities(x.text))]));
        break;
      }
      case 'escape':
        out.push(text((t as Tokens.Escape).text));
        break;
      default:
        // html tags and anything unknown: the source text, as text
        out.push(text(t.raw));
    }
  }
  return out;
}

function block(tokens: Token[]): Node[] {
  const out: Node[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case 'space':
      case 'def':
        break;
      case 'paragraph':
        out.push(el('p', inline((t as Tokens.Paragraph).tokens)));
        break;
      case 'heading': {
        // headings inside a chat bubble stay modest: h3..h6 whatever the depth
        const depth = Math.min(6, Math.max(3, (t as Tokens.Heading).depth + 2));
        out.push(el(`h${depth}` as 'h3', inline((t as Tokens.Heading).tokens)));
        break;
      }
      case 'code':
        out.push(el('pre', [el('code', [text((t as Tokens.Code).text)])]));
        break;
      case 'blockquote':
        out.push(el('blockquote', block((t as Tokens.Blockquote).tokens)));
        break;
      case 'hr':
        out.push(el('hr'));
        break;
      case 'list': {
        const l = t as Tokens.List;
        const list = el(l.ordered ? 'ol' : 'ul');
        if (l.ordered && typeof l.start === 'number' && l.start !== 1) list.setAttribute('start', String(l.start));
        for (const item of l.items) {
          const children = item.tokens.some((x) => x.type !== 'text' && x.type !== 'checkbox')
            ? block(item.tokens)
            : inline(flattenText(item.tokens));
          list.appendChild(el('li', children));
        }
        out.push(list);
        break;
      }
      case 'table': {
        const tb = t as Tokens.Table;
        const head = el(
          'tr',
          tb.header.map((c) => el('th', inline(c.tokens))),
        );
        const rows = tb.rows.map((r) =>
          el(
            'tr',
            r.map((c) => el('td', inline(c.tokens))),
          ),
        );
        const table = el('table', [el('thead', [head]), el('tbody', rows)]);
        const wrap = el('div', [table]);
        wrap.className = 'table-wrap'; // wide tables scroll inside the bubble
        out.push(wrap);
        break;
      }
      case 'text': {
        // loose text at block level (inside list items)
        const x = t as Tokens.Text;
        out.push(el('p', x.tokens ? inline(x.tokens) : [text(decodeEntities(x.text))]));
        break;
      }
      case 'checkbox':
        out.push(text((t as Tokens.Checkbox).checked ? '\u2611 ' : '\u2610 '));
        break;
      default:
        // block html (an <iframe>, a <script>...) and anything unknown: shown as text
        out.push(el('p', [text(t.raw.trim())]));
    }
  }
  return out;
}

/** Tight list items hold text tokens whose own tokens are the inline ones. */
function flattenText(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.type === 'checkbox')
      out.push({
        type: 'text',
        raw: (t as Tokens.Checkbox).checked ? '\u2611 ' : '\u2610 ',
        text: (t as Tokens.Checkbox).checked ? '\u2611 ' : '\u2610 ',
      } as Tokens.Text);
    else if (t.type === 'text' && (t as Tokens.Text).tokens) out.push(...(t as Tokens.Text).tokens!);
    else out.push(t);
  }
  return out;
}

/** Renders `source` into `target`, replacing what was there. */
export function renderMarkdown(target: HTMLElement, source: string): void {
  let nodes: Node[];
  try {
    nodes = block(Lexer.lex(source, { gfm: true, breaks: true }));
  } catch {
    nodes = [el('p', [text(source)])];
  }
  target.replaceChildren(...nodes);
}
