import net from 'node:net';

/**
 * Which IP addresses a webhook delivery may connect to (SSRF guard, docs/api.md, "Webhooks and events"): public unicast
 * only. Refused: loopback, RFC 1918 private, CGNAT, link-local (incl. the 169.254.169.254 cloud
 * metadata address), multicast, broadcast, unspecified (0.0.0.0, ::), documentation/benchmark/
 * reserved ranges; for IPv6 everything outside global unicast 2000::/3 (so ::1, fc00::/7, fe80::/10,
 * IPv4-mapped ::ffff:0:0/96 and NAT64 64:ff9b::/96, which can smuggle an IPv4 target) plus the
 * special-purpose blocks inside 2000::/3 (Teredo, 6to4, documentation).
 * Ranges mirror ipaddr.js's "non-unicast" classes, which request-filtering-agent uses.
 */

export interface AddressPolicy {
  /** Test setting: also allow 127.0.0.0/8 and ::1 (and nothing else non-public). */
  allowLoopback: boolean;
}

const subnets = (family: 'ipv4' | 'ipv6', list: Array<[string, number]>): net.BlockList => {
  const blockList = new net.BlockList();
  for (const [address, prefix] of list) blockList.addSubnet(address, prefix, family);
  return blockList;
};

const NON_PUBLIC_V4 = subnets('ipv4', [
  ['0.0.0.0', 8], // "this network", incl. 0.0.0.0 which Linux routes to the local host
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. 255.255.255.255
]);

const GLOBAL_UNICAST_V6 = subnets('ipv6', [['2000::', 3]]);
const SPECIAL_IN_GLOBAL_V6 = subnets('ipv6', [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, ...
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['2620:4f:8000::', 48], // AS112
  ['3fff::', 20], // documentation
]);

const LOOPBACK_V4 = subnets('ipv4', [['127.0.0.0', 8]]);
const LOOPBACK_V6 = subnets('ipv6', [['::1', 128]]);

/** null when the address may be connected to, else the reason it is refused. */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  const family = net.isIP(address);
  try {
    if (family === 4) {
      if (policy.allowLoopback && LOOPBACK_V4.check(address, 'ipv4')) return null;
      return NON_PUBLIC_V4.check(address, 'ipv4') ? `${address} is not a public address` : null;
    }
    if (family === 6) {
      if (policy.allowLoopback && LOOPBACK_V6.check(address, 'ipv6')) return null;
      const isPublic = GLOBAL_UNICAST_V6.check(address, 'ipv6') && !SPECIAL_IN_GLOBAL_V6.check(address, 'ipv6');
      return isPublic ? null : `${address} is not a public address`;
    }
  } catch {
    // e.g. an IPv6 zone id ("fe80::1%eth0") that BlockList cannot parse: never public.
    return `${address} is not a public address`;
  }
  return `${address} is not an IP address`;
}
