import ipaddr from 'ipaddr.js'

/**
 * True for an address on the public internet. Everything else — loopback, private, link-local,
 * carrier-grade NAT, multicast, reserved, and IPv6 forms that embed such an IPv4 address — is not,
 * so a page cannot reach this machine or its network through a name or literal that points there.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  let parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  return parsed.range() === 'unicast'
}
