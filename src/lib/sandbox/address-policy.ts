import ipaddr, {type IPv4, type IPv6} from 'ipaddr.js'

/**
 * Blocks of IANA's IPv4 Special-Purpose Address Registry that are not globally reachable, plus
 * multicast and broadcast: none of them is a public host a composition or a webhook may call.
 */
export const NON_PUBLIC_IPV4: readonly (readonly [cidr: string, name: string])[] = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'limited broadcast'],
  ['240.0.0.0/4', 'reserved'],
]

/**
 * The same for IANA's IPv6 Special-Purpose Address Registry. Only global unicast (2000::/3) can be
 * public at all; IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that
 * address; the deprecated IPv4-compatible form (::/96) and Teredo are refused outright.
 */
export const NON_PUBLIC_IPV6: readonly (readonly [cidr: string, name: string])[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'deprecated ORCHID'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing (SRv6) SIDs'],
  ['fc00::/7', 'unique-local (private)'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
]

const parsedV4 = NON_PUBLIC_IPV4.map(([cidr, name]) => [ipaddr.IPv4.parseCIDR(cidr), name] as const)
const parsedV6 = NON_PUBLIC_IPV6.map(([cidr, name]) => [ipaddr.IPv6.parseCIDR(cidr), name] as const)
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3')
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96')
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16')

function v4From(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
}

/** Why an address is not a public host (the registry block's name), or undefined when it is one. */
export function nonPublicReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address'
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') {
    const v4 = parsed as IPv4
    return parsedV4.find(([range]) => v4.match(range))?.[1]
  }
  const v6 = parsed as IPv6
  const special = parsedV6.find(([range]) => v6.match(range))?.[1]
  if (special) return special
  if (v6.isIPv4MappedAddress()) return nonPublicReason(v6.toIPv4Address().toString())
  const {parts} = v6
  if (v6.match(NAT64)) return nonPublicReason(v4From(parts[6], parts[7]).toString())
  if (v6.match(SIX_TO_FOUR)) return nonPublicReason(v4From(parts[1], parts[2]).toString())
  return v6.match(GLOBAL_UNICAST) ? undefined : 'reserved (outside global unicast 2000::/3)'
}

/**
 * True for an address on the public internet (the render sandbox and webhooks use the same test).
 * Everything in IANA's special-purpose registries that is not globally reachable (loopback,
 * private, link-local, carrier-grade NAT, documentation, benchmarking, reserved), multicast, and
 * IPv6 forms that embed such an IPv4 address is not, so a page cannot reach this machine or its
 * network through a name or literal that points there.
 */
export function isPublicAddress(address: string): boolean {
  return nonPublicReason(address) === undefined
}
