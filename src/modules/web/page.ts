import { escapeHtml } from '../../platform/http/html.js';
import type { PublicAgentInfo } from '../agents/index.js';

/** The http(s) origin of a configured image URL, for img-src (an origin holds no `;` or `,`). */
function imageOrigin(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * Content-Security-Policy of the shareable chat page: only our own script (no inline code), styles
 * only from the widget's constructed stylesheet, requests only to this origin, images only from
 * here and the agent's logo/avatar hosts. frame-ancestors 'none': sites embed the chat with
 * /widget.js, so the page that takes a visitor's phone number cannot be framed and overlaid.
 */
export function chatPageCsp(info: Pick<PublicAgentInfo, 'logo_url' | 'avatar_url'>): string {
  const images = new Set(["'self'"]);
  for (const u of [info.logo_url, info.avatar_url]) {
    const o = imageOrigin(u);
    if (o) images.add(o);
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    `img-src ${[...images].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The full-page chat: an empty document the widget bundle fills in page mode. */
export function chatPageHtml(info: Pick<PublicAgentInfo, 'id' | 'name'>, bundleFile: string): string {
  const name = escapeHtml(info.name);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>Chat with ${name}</title>
<script src="/${escapeHtml(bundleFile)}" data-chatbot-id="${escapeHtml(info.id)}" data-mode="page" defer></script>
</head>
<body>
<noscript>Chat with ${name} needs JavaScript.</noscript>
</body>
</html>
`;
}
