import type { FastifyRequest } from 'fastify';

/** Text for an HTML element or a quoted attribute: the five characters that could end either are escaped. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A browser navigating (it asks for HTML) gets a page; any other client the API's JSON. */
export const acceptsHtml = (req: FastifyRequest): boolean => /\btext\/html\b/i.test(req.headers.accept ?? '');

/** A page of one heading, one line and optional markup, for links opened from e-mails and shares. */
export function messagePageHtml(heading: string, text = '', extra = ''): string {
  const h = escapeHtml(heading);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${h}</title></head>
<body><p>${h}</p>${text ? `<p>${escapeHtml(text)}</p>` : ''}${extra}</body>
</html>
`;
}
