import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import ipaddr from 'ipaddr.js';
import type { LookupFunction } from 'node:net';

/**
 * Whether an IP address is on the public internet. Live webhooks may only reach such addresses,
 * so a merchant cannot aim Skil at its own network (SSRF): loopback, private, link-local (cloud
 * metadata at 169.254.169.254), carrier-grade NAT, unique-local, multicast and reserved all fail.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr.range() === 'unicast';
}

/** Why a hostname is not acceptable for a live channel, or null when every address it has is public. */
export async function nonPublicReason(hostname: string): Promise<string | null> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return isPublicAddress(host) ? null : `${host} is not a public address`;
  let addresses: LookupAddress[];
  try {
    addresses = await dns.lookup(host, { all: true, verbatim: true });
  } catch {
    return `${host} does not resolve`;
  }
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  return bad ? `${host} resolves to ${bad.address}, which is not a public address` : null;
}

/**
 * A DNS lookup for outgoing requests that refuses non-public answers. Checking at connect time, not
 * only when the channel was saved, closes the gap where a name is re-pointed after validation.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list: LookupAddress[] = addresses;
    const bad = list.find((a) => !isPublicAddress(a.address));
    if (bad || list.length === 0) {
      const error = Object.assign(new Error(`${hostname} resolves to a non-public address`), {
        code: 'ENOTPUBLIC',
      });
      return callback(error, '', 0);
    }
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
};
