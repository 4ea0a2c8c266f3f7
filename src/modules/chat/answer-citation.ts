/** The citation under a quote of the no-model answer, and the heading path a prompt's passage shows. */

/** What a citation names: a knowledge-answer.ts `AnswerPassage` has these. */
export interface CitedPassage {
  sourceName: string;
  /** page title (websites) or document title, if any */
  title: string | null;
  /** the page's own URL (websites), else null */
  pageUrl: string | null;
  /** PDF page number, else null */
  page: number | null;
  /** heading path like "Setup > Reset", else null */
  heading: string | null;
}

function escapeLinkText(s: string): string {
  return s.replace(/[\\[\]*`]/g, (c) => `\\${c}`);
}

function linkTarget(url: string): string {
  return url.trim().replace(/[ ()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * The heading path without a leading copy of the page's title: a page's first heading often
 * repeats it ("Pricing" > "Plans" under the title "Pricing"), and a citation says it once.
 */
export function headingBelow(
  title: string | null | undefined,
  heading: string | null | undefined,
): string | null | undefined {
  if (!title || !heading?.startsWith(title)) return heading;
  return heading.slice(title.length).replace(/^\s*>\s*/, '');
}

/** "Source: [Title, page 12 — Setup > Reset](url)", or unlinked without a page URL. */
export function citation(p: CitedPassage): string {
  const name = p.title?.trim() || p.sourceName.trim() || 'our information';
  let label = name;
  if (p.page !== null && p.page !== undefined) label += `, page ${p.page}`;
  const heading = headingBelow(name, p.heading?.trim());
  if (heading) label += ` — ${heading}`;
  label = label.replace(/\s+/g, ' ');
  const url = p.pageUrl?.trim();
  return url ? `Source: [${escapeLinkText(label)}](${linkTarget(url)})` : `Source: ${escapeLinkText(label)}`;
}
