/**
 * `allowed_domains` of an agent: host patterns naming the websites that may embed it.
 *
 * A pattern is `example.com` (that host only), `*.example.com` (any subdomain, not the bare
 * domain) or either with a port (`example.com:8080`; without a port any port matches). Owners
 * paste whole addresses, so `https://www.example.com/contact` is accepted and kept as
 * `www.example.com`; the scheme does not matter (http and https both match).
 */

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;

/** The normalised pattern, or an error message naming what is wrong with it. */
export function normaliseHostPattern(raw: string): { pattern: string } | { error: string } {
  let text = raw.trim().toLowerCase().replace(SCHEME, '');
  text = text.replace(/[/?#].*$/, '');
  const wildcard = text.startsWith('*.');
  const hostAndPort = wildcard ? text.slice(2) : text;
  if (!hostAndPort || hostAndPort.includes('*') || hostAndPort.includes('@')) {
    return { error: `${JSON.stringify(raw)} is not a host such as example.com or *.example.com` };
  }
  let url: URL;
  try {
    url = new URL(`http://${hostAndPort}`);
  } catch {
    return { error: `${JSON.stringify(raw)} is not a host such as example.com or *.example.com` };
  }
  const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
  const looksLikeHost = url.hostname.includes('.') || url.hostname === 'localhost' || url.hostname.startsWith('[');
  if (!looksLikeHost || url.hostname.endsWith('.')) {
    return { error: `${JSON.stringify(raw)} is not a host such as example.com or *.example.com` };
  }
  return { pattern: wildcard ? `*.${host}` : host };
}

/** Whether a browser `Origin` header value matches one of the patterns. */
export function originMatches(patterns: readonly string[], origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null" (sandboxed frames, file://)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return patterns.some((pattern) => {
    const wildcard = pattern.startsWith('*.');
    const [base, wantPort] = splitPort(wildcard ? pattern.slice(2) : pattern);
    if (wantPort && wantPort !== port) return false;
    return wildcard ? url.hostname.endsWith(`.${base}`) : url.hostname === base;
  });
}

function splitPort(hostAndPort: string): [string, string | undefined] {
  // an IPv6 literal keeps its brackets: [::1]:8080
  const m = /^(.*?)(?::(\d+))?$/.exec(hostAndPort)!;
  return [m[1]!, m[2]];
}
