// The parsed page as html-text.ts reads it: domhandler nodes, what is known about each element
// name, and the walk that both readings of a page (html-survey.ts, html-block-builder.ts) use.

/** The domhandler node shape, as far as it is read here (cheerio does not re-export its types). */
export interface DomNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  data?: string;
  children?: DomNode[];
  parent: DomNode | null;
  next: DomNode | null;
  /** set on every element by the first walk (the parsed tree is private to one htmlBlocks call) */
  stats?: Stats;
}

/** Never text: removed with everything inside, boilerplate or not. */
export const ALWAYS_REMOVED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'form',
  'button',
  'select',
  'input',
  // not named in the rules but never readable text either: fallback text of media, form fields,
  // and head content (htmlparser2 adds no body, so the walk may start at the document)
  'textarea',
  'audio',
  'video',
  'map',
  'head',
  'title',
  'meta',
  'link',
  'base',
]);

/** Elements that end a block (their text never runs into the text around them). */
export const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'search',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
]);

export const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

/** Their header/footer is the section's own (e.g. an article's title), not the site's banner (as in ARIA). */
export const SECTIONING = new Set(['article', 'aside', 'main', 'nav', 'section']);

/** The content roots: never dropped as boilerplate, whatever their class says. */
export const NEVER_DROPPED = new Set(['html', 'body', 'main', 'article']);

export const BOILERPLATE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search']);

export const BOILERPLATE_WORDS = new Set([
  'nav',
  'navbar',
  'menu',
  'menubar',
  'sidebar',
  'footer',
  'header',
  'breadcrumb',
  'breadcrumbs',
  'cookie',
  'cookies',
  'banner',
  'social',
  'share',
  'skip',
  'topbar',
  'toolbar',
  'pagination',
  'pager',
]);
/** class words naming a title area: such an element is kept when it holds a heading ("section-header", "entry-header") */
export const TITLE_AREA_WORDS = new Set(['header', 'banner']);

/** Containers judged by their link density. */
export const LINK_LIST_TAGS = new Set(['ul', 'ol', 'div', 'table', 'p']);
export const LINK_LIST_MIN_LINKS = 3;
export const LINK_LIST_MIN_SHARE = 0.7;
/** a container with this much text outside its links is content however many links it has (a page wrapper next to a big menu) */
export const LINK_LIST_MAX_OTHER_CHARS = 200;

/** a table cell with more block content than this is page layout, not data */
export const LAYOUT_CELL_CHARS = 1500;
/** bounds on spans, so a hostile colspan cannot blow the output up */
export const MAX_COLSPAN = 50;
export const MAX_ROWSPAN = 1000;

// flags of what an element holds (per-element statistics of the first walk)
export const HOLDS_H1 = 1;
export const HOLDS_HEADING = 2;
export const HOLDS_TABLE = 4;
export const HOLDS_BLOCK = 8;

export interface Stats {
  /** non-white-space characters of the text inside (removed elements not counted) */
  chars: number;
  /** of which inside links */
  linkChars: number;
  links: number;
  holds: number;
  removed: boolean;
}

/**
 * Depth-first over the subtree of `root` without recursion (pages nest 50,000 deep) and without a
 * stack: children, then the next sibling, else back up through the parents. `enter` says whether
 * to go into a node; `exit` is called for every node gone into, after its children.
 */
export function walk(root: DomNode, enter: (node: DomNode) => boolean, exit: (node: DomNode) => void): void {
  let node = root;
  for (;;) {
    const into = enter(node);
    const first = into ? node.children?.[0] : undefined;
    if (first) {
      node = first;
      continue;
    }
    if (into) exit(node);
    for (;;) {
      if (node === root) return;
      if (node.next) {
        node = node.next;
        break;
      }
      node = node.parent!;
      exit(node);
    }
  }
}

export const isElement = (node: DomNode) => node.type === 'tag' || node.type === 'script' || node.type === 'style';

export function alwaysRemoved(el: DomNode): boolean {
  const a = el.attribs ?? {};
  return (
    ALWAYS_REMOVED.has(el.name!) ||
    a['aria-hidden']?.toLowerCase() === 'true' ||
    a.hidden !== undefined ||
    (el.name === 'a' && PERMALINK_CLASS.test(a.class ?? ''))
  );
}

/**
 * The permalink mark documentation generators put after each heading and definition (Sphinx and
 * MkDocs "¶", Docusaurus "#", markdown-it and AnchorJS anchors): not text, and it would end every
 * heading of the page with a "¶".
 */
const PERMALINK_CLASS = /(?:^|\s)(?:headerlink|hash-link|header-anchor|anchor-link|anchorjs-link)(?:\s|$)/;
