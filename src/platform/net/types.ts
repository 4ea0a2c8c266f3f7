/** The contract of platform/net (safe outbound fetch); implementation in safe-fetch.ts. */

export interface SafeFetchOptions {
  /** ALLOW_PRIVATE_URLS: let loopback/private/link-local targets through (tests only) */
  allowPrivate: boolean;
  /** the body is cut off (error) past this many bytes */
  maxBytes: number;
  /** whole request, connect to last byte */
  timeoutMs: number;
  /** redirects followed, each re-checked; default 5 */
  maxRedirects?: number;
  /** media types accepted (e.g. ['text/html', 'application/xhtml+xml', 'text/plain', 'application/xml', 'text/xml']); others are an error */
  allowedContentTypes?: string[];
  signal?: AbortSignal;
  /** method, headers and body when not the crawler's plain GET (set maxRedirects 0 with it: a body is not sent twice) */
  request?: OutgoingRequest;
}

export interface SafeFetchResult {
  /** the URL finally answered, after redirects */
  url: string;
  status: number;
  /** media type without parameters, lower-case */
  contentType: string;
  body: Buffer;
  /** the validators a conditional request sends back (If-None-Match, If-Modified-Since) */
  etag?: string;
  lastModified?: string;
}

/** The URL may not be fetched: bad scheme, internal address, credentials in it. Message is user-facing. */
export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError';
}

/** The fetch itself failed (DNS, connect, timeout, too large, wrong content type, too many redirects). Message is user-facing. */
export class FetchFailedError extends Error {
  override name = 'FetchFailedError';
}

/**
 * A request other than the crawler's plain GET (an action's signed call to its owner's endpoint):
 * its method, headers and body. The crawler's sends no credentials at all.
 */
export interface OutgoingRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}
