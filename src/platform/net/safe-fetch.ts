import { lookup as dnsLookup } from 'node:dns/promises';
import type http from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { asFetchFailure, Exchange, mediaType, readBody, send, tooLarge } from './fetch-exchange.js';
import { FetchFailedError, UnsafeUrlError, type SafeFetchOptions, type SafeFetchResult } from './types.js';

/**
 * Safe outbound fetch (website sources). The address policy is enforced twice: on the URL itself
 * (scheme, credentials, internal host names, literal IPs in every spelling WHATWG URL accepts) and
 * inside the socket's own DNS lookup, so the addresses checked are the addresses connected to and
 * a DNS answer that changes between submission and fetch (rebinding) cannot slip through. Every
 * redirect hop goes through both checks again.
 */

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal'];

/** Every address (A and AAAA) a host name resolves to. */
export type Resolver = (hostname: string) => Promise<string[]>;

/**
 * @internal Test seam only. Production code calls `safeFetch` / `assertPublicHttpUrl`, which
 * always use the defaults (`isPublicAddress`, the system resolver). Tests pass their own so a
 * loopback server can stand in for a "public" host, and a fake DNS can answer what it likes.
 */
export interface NetPolicy {
  /** which addresses count as public when allowPrivate is false; default `isPublicAddress` */
  isPublicAddress?: (ip: string) => boolean;
  /** host name -> addresses; default the system resolver (getaddrinfo, all answers) */
  resolve?: Resolver;
}

// ---------------------------------------------------------------------------------------------
// address classification

const V6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const V6_RFC6145 = ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96');
const V6_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const V6_6TO4 = ipaddr.IPv6.parseCIDR('2002::/16');

function v4FromBytes(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

function isPublicV4(addr: ipaddr.IPv4): boolean {
  // everything ipaddr names (private, loopback, linkLocal, carrierGradeNat, unspecified,
  // broadcast, multicast, reserved incl. 192.0.0/24, 198.18/15, 240/4, ...) is not public
  return addr.range() === 'unicast';
}

function isPublicV6(addr: ipaddr.IPv6): boolean {
  if (addr.zoneId) return false;
  const bytes = addr.toByteArray();
  // addresses that carry an IPv4 address are judged by that address
  if (addr.isIPv4MappedAddress()) return isPublicV4(addr.toIPv4Address());
  if (addr.match(V6_RFC6145) || addr.match(V6_NAT64)) return isPublicV4(v4FromBytes(bytes.slice(12, 16)));
  if (addr.match(V6_6TO4)) return isPublicV4(v4FromBytes(bytes.slice(2, 6)));
  // outside 2000::/3 is never public (::, ::1, IPv4-compatible ::/96, 64:ff9b:1::/48,
  // fc00::/7, fe80::/10, fec0::/10, ff00::/8, ...); inside it, drop what ipaddr names
  // (Teredo, 2001::/23, documentation, benchmarking, ORCHID, ...)
  if (!addr.match(V6_GLOBAL_UNICAST)) return false;
  return addr.range() === 'unicast';
}

/** True only for a globally routable unicast address; anything unparsable is not public. */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.parse(ip);
  return addr instanceof ipaddr.IPv4 ? isPublicV4(addr) : isPublicV6(addr as ipaddr.IPv6);
}

// ---------------------------------------------------------------------------------------------
// URL check

/** the IP address a URL host names literally, normalised, or undefined for a host name */
function literalAddress(hostname: string): string | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  // WHATWG URL has already turned decimal/hex/octal/short IPv4 forms into dotted decimal;
  // this also catches any form it might have let through
  if (ipaddr.IPv4.isValid(hostname)) return ipaddr.IPv4.parse(hostname).toString();
  return undefined;
}

function checkUrl(raw: string, allowPrivate: boolean, isPublic: (ip: string) => boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('The URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UnsafeUrlError('Only http and https URLs can be fetched.');
  if (url.username !== '' || url.password !== '')
    throw new UnsafeUrlError('URLs with a user name or password cannot be fetched.');
  if (url.hostname === '') throw new UnsafeUrlError('The URL has no host.');
  checkHost(url.hostname, allowPrivate, isPublic);
  return url;
}

/** Unless allowPrivate: no internal host name and no literal address outside public unicast space. */
function checkHost(host: string, allowPrivate: boolean, isPublic: (ip: string) => boolean): void {
  if (allowPrivate) return;
  const name = host.replace(/\.+$/, '');
  if (name === '' || name === 'localhost' || INTERNAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    throw new UnsafeUrlError(`${host} is an internal host name; only public addresses can be fetched.`);
  }
  const literal = literalAddress(host);
  if (literal !== undefined && !isPublic(literal)) {
    throw new UnsafeUrlError(
      `${host} is not a public address; loopback, private, link-local and other internal addresses cannot be fetched.`,
    );
  }
}

/**
 * The checks done when a URL is submitted (a 400 when they fail): an absolute http(s) URL with a
 * host and no user name or password; unless allowPrivate, no internal host name (localhost,
 * *.localhost, *.local, *.internal) and no literal IP outside public unicast space. Host names are
 * resolved only when fetched (see safeFetch). Throws UnsafeUrlError.
 */
export function assertPublicHttpUrl(raw: string, allowPrivate: boolean): URL {
  return checkUrl(raw, allowPrivate, isPublicAddress);
}

// ---------------------------------------------------------------------------------------------
// connect-time DNS check

const systemResolve: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

function wantedFamily(family: number | string | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * @internal (exported for tests) The `lookup` handed to http(s).request: resolves every address
 * of the host and, unless allowPrivate, fails the connection before it is made when any of them
 * is not public (UnsafeUrlError). Production code gets it through safeFetch with the defaults.
 */
export function createSafeLookup(allowPrivate: boolean, policy: NetPolicy = {}): LookupFunction {
  const answer = (hostname: string, family: 0 | 4 | 6) => checkedAddresses(hostname, family, allowPrivate, policy);
  return (hostname, options, callback) => {
    answer(hostname, wantedFamily(options.family)).then(
      (usable) => {
        const first = usable[0]!;
        if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), ''),
    );
  };
}

/** Every address of `hostname` (of `family`, 0 for both); unless allowPrivate, refused when any is not public. */
async function checkedAddresses(hostname: string, family: 0 | 4 | 6, allowPrivate: boolean, policy: NetPolicy) {
  const resolve = policy.resolve ?? systemResolve;
  const isPublic = policy.isPublicAddress ?? isPublicAddress;
  const literal = isIP(hostname) ? [hostname] : null;
  const addresses = (literal ?? (await resolve(hostname))).map((address) => ({ address, family: isIP(address) }));
  if (addresses.some((a) => a.family === 0))
    throw new FetchFailedError(`The DNS answer for ${hostname} is not an address.`);
  if (!allowPrivate) {
    const internal = addresses.find((a) => !isPublic(a.address));
    if (internal)
      throw new UnsafeUrlError(
        `${hostname} resolves to an internal address (${internal.address}); only public addresses can be fetched.`,
      );
  }
  const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
  if (usable.length === 0)
    throw Object.assign(new FetchFailedError(`Could not resolve ${hostname}.`), { code: 'ENOTFOUND' });
  return usable;
}

/**
 * For connections other than HTTP (an IMAP or SMTP server an owner typed): the host checked as
 * assertPublicHttpUrl checks a URL's, then resolved and every answer checked as safeFetch does.
 * The caller connects to the address returned (the TLS server name stays the host name), so a
 * DNS answer that changes later cannot point the connection elsewhere. Throws UnsafeUrlError or
 * FetchFailedError.
 */
export async function resolvePublicHost(host: string, allowPrivate: boolean, policy: NetPolicy = {}): Promise<string> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  checkHost(host, allowPrivate, policy.isPublicAddress ?? isPublicAddress);
  return (await checkedAddresses(bare, 0, allowPrivate, policy))[0]!.address;
}

// ---------------------------------------------------------------------------------------------
// the fetch (each hop: fetch-exchange.ts)

function redirectRefused(err: UnsafeUrlError): UnsafeUrlError {
  return new UnsafeUrlError(`The page redirected to a URL that cannot be fetched: ${err.message}`);
}

/**
 * @internal Test seam: safeFetch with a non-default address policy and resolver (see NetPolicy).
 * Production code calls safeFetch.
 */
export async function safeFetchWithPolicy(
  rawUrl: string,
  opts: SafeFetchOptions,
  policy: NetPolicy,
): Promise<SafeFetchResult> {
  const isPublic = policy.isPublicAddress ?? isPublicAddress;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const allowedTypes = opts.allowedContentTypes?.map((t) => t.toLowerCase());
  const lookup = createSafeLookup(opts.allowPrivate, policy);

  let url = checkUrl(rawUrl, opts.allowPrivate, isPublic);
  const exchange = new Exchange(opts.timeoutMs, opts.signal);
  const signal = exchange.controller.signal;
  try {
    for (let redirects = 0; ; redirects++) {
      if (exchange.stopped) throw signal.reason;
      let res: http.IncomingMessage;
      try {
        res = await send(url, lookup, signal, opts.request);
      } catch (err) {
        // the connect-time DNS check refused a redirect target
        if (err instanceof UnsafeUrlError && redirects > 0) throw redirectRefused(err);
        throw err;
      }
      const status = res.statusCode ?? 0;

      if (REDIRECT_STATUSES.has(status)) {
        const location = res.headers.location;
        res.destroy();
        if (!location) throw new FetchFailedError(`${url.host} answered a redirect (${status}) without a Location.`);
        if (redirects >= maxRedirects) throw new FetchFailedError(`Too many redirects (more than ${maxRedirects}).`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchFailedError(`${url.host} redirected to an invalid URL.`);
        }
        try {
          url = checkUrl(next.href, opts.allowPrivate, isPublic);
        } catch (err) {
          if (err instanceof UnsafeUrlError) throw redirectRefused(err);
          throw err;
        }
        continue;
      }

      const contentType = mediaType(res.headers['content-type']);
      // the allowlist applies to real answers; error pages come back with their status as they are
      if (status >= 200 && status < 300 && allowedTypes && !allowedTypes.includes(contentType)) {
        res.destroy();
        throw new FetchFailedError(`The page has an unsupported content type (${contentType || 'none'}).`);
      }
      const announced = Number(res.headers['content-length']);
      if (res.headers['content-length'] !== undefined && Number.isFinite(announced) && announced > opts.maxBytes) {
        res.destroy();
        throw tooLarge(opts.maxBytes);
      }
      const body = await readBody(res, opts.maxBytes, signal);
      // the validators a conditional request sends back, when the server gave them
      const { etag, 'last-modified': lastModified } = res.headers;
      return {
        url: url.href,
        status,
        contentType,
        body,
        ...(etag ? { etag } : {}),
        ...(lastModified ? { lastModified } : {}),
      };
    }
  } catch (err) {
    if (err instanceof UnsafeUrlError || err instanceof FetchFailedError) throw err;
    if (exchange.stopped === 'timeout')
      throw new FetchFailedError(`Fetching ${url.host} timed out after ${opts.timeoutMs} ms.`);
    if (exchange.stopped === 'aborted') throw new FetchFailedError('The fetch was cancelled.');
    throw asFetchFailure(err, url.host);
  } finally {
    exchange.end();
  }
}

/**
 * GETs `url` under the policy of assertPublicHttpUrl, re-checked on every redirect hop, with
 * connect-time DNS checks (all answers), a byte cap, one deadline for the whole exchange, the
 * caller's signal and an optional content-type allowlist (2xx answers only). Non-2xx final
 * statuses are returned; 301/302/303/307/308 are followed (up to maxRedirects, default 5).
 * Rejects with UnsafeUrlError (an address not allowed, at any hop) or FetchFailedError
 * (everything else, including a timeout and a cancellation by `signal`).
 */
export function safeFetch(url: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  return safeFetchWithPolicy(url, opts, {});
}
