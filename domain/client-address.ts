import ipaddr from 'ipaddr.js';

/**
 * The client's address as an audit entry or a session records it: Express's `req.ip` (the peer, or
 * what the trusted load balancer forwarded under TRUST_PROXY), an IPv4-mapped IPv6 address as the
 * IPv4 address it carries.
 */
export function recordedAddress(ip: string | undefined): string | null {
  if (ip === undefined || ip === '') return null;
  return ipaddr.isValid(ip) ? ipaddr.process(ip).toString() : ip.slice(0, 100);
}
