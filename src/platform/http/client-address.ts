import ipaddr from 'ipaddr.js';

/*
 * The address a request is counted under: one household's or one small network's IPv6 addresses
 * share a /64, so per-address limits (rate limits, password-reset requests) count the /64.
 */

/** dotted IPv4 already in canonical form (no leading zeros), which parsing would return unchanged */
const DOTTED_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** An IPv4 address as is; an IPv6 address as its /64 (IPv4-mapped IPv6 as the IPv4 address). */
export function clientBlock(ip: string): string {
  if (DOTTED_IPV4.test(ip)) return ip; // the common case, without parsing
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}
