import ipaddr from 'ipaddr.js'

/**
 * True for an address on the public internet (the render sandbox and webhooks use the same test). Everything else — loopback, private, link-local,
 * carrier-grade NAT, multicast, reserved, and IPv6 forms that embed such an IPv4 address — is not,
 * so a page cannot reach this machine or its network through a name or literal that points there.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  // process() turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  return ipaddr.process(address).range() === 'unicast'
}
