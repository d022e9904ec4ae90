import dns, { type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import type { LookupFunction } from 'node:net';

/**
 * Which addresses a channel may reach (decision 0111). Live channels: public addresses only. Test
 * channels: public addresses, and loopback where the deployment allows it (`WEBHOOK_ALLOW_LOOPBACK`,
 * on for `npm start`'s local development, off in the container and the cluster; decisions 0005,
 * 0225). Neither reaches private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * unique-local or reserved addresses, unless the operator opened a range
 * (`WEBHOOK_ALLOW_PRIVATE_RANGES`). Unspecified, multicast and broadcast addresses are never reachable.
 */
export interface AddressPolicy {
  livemode: boolean;
  /** CIDR ranges the operator allows, in either mode. */
  allowPrivateRanges: readonly string[];
  /** Whether test channels may reach loopback (WEBHOOK_ALLOW_LOOPBACK); unset: no. */
  allowLoopback?: boolean | undefined;
}

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

function parse(ip: string): Addr {
  const addr = ipaddr.parse(ip);
  // ::ffff:10.0.0.1 is 10.0.0.1: judge the IPv4 address it carries.
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
    ? (addr as ipaddr.IPv6).toIPv4Address()
    : addr;
}

/** Whether an IP address is on the public internet (ipaddr.js's `unicast` range). */
export function isPublicAddress(ip: string): boolean {
  return ipaddr.isValid(ip) && parse(ip).range() === 'unicast';
}

const NEVER = new Set(['unspecified', 'multicast', 'broadcast']);

const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

function inRanges(addr: Addr, ranges: readonly string[]): boolean {
  return ranges.some((cidr) => {
    const [net, bits] = ipaddr.parseCIDR(cidr.trim());
    return net.kind() === addr.kind() && addr.match(net, bits);
  });
}

/** Why `ip` may not be reached under `policy`, or null when it may. */
export function addressRefusal(ip: string, policy: AddressPolicy): string | null {
  const bare = ip.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return `${ip} is not an IP address`;
  const addr = parse(bare);
  const range = addr.range();
  if (range === 'unicast') return null;
  const name = RANGE_NAMES[range] ?? `reserved (${range})`;
  if (NEVER.has(range)) return `${bare} is an ${name} address`;
  if (range === 'loopback' && !policy.livemode && policy.allowLoopback === true) return null;
  if (inRanges(addr, policy.allowPrivateRanges)) return null;
  return `${bare} is a ${name} address, which ${policy.livemode ? 'a live' : 'a test'} channel may not reach`;
}

/**
 * Why a host may not be reached, or null when every address it resolves to may be. A name that
 * does not resolve is refused too: there is nothing to check.
 */
export async function hostRefusal(hostname: string, policy: AddressPolicy): Promise<string | null> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return addressRefusal(host, policy);
  let addresses: LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    return `${host} does not resolve`;
  }
  for (const a of addresses) {
    const reason = addressRefusal(a.address, policy);
    if (reason) return `${host} resolves to ${reason}`;
  }
  return addresses.length === 0 ? `${host} does not resolve` : null;
}

/**
 * A DNS lookup for outgoing requests that refuses answers the policy refuses. Checking when the
 * socket is opened, not only when the channel was saved, defeats a name re-pointed after the check
 * (DNS rebinding). An IP literal in a URL is never looked up: the sender checks it itself.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list: LookupAddress[] = addresses;
      let reason: string | null = list.length === 0 ? 'no address' : null;
      for (const a of list) reason ??= addressRefusal(a.address, policy);
      if (reason) {
        const error = Object.assign(new Error(`${hostname} resolves to ${reason}`), { code: 'ENOTALLOWED' });
        return callback(error, '', 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}
