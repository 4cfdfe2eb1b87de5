import {lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions} from 'node:dns'
import {isIP} from 'node:net'
import {isPublicAddress} from '../sandbox/address-policy.js'

/**
 * Which addresses a webhook may reach. The CLI's user picked the URL themselves, so anything goes;
 * a server taking URLs from its clients must not become a way into its own network (loopback,
 * private ranges, link-local cloud metadata), unless its operator names the host.
 */
export interface AddressPolicy {
  allowPrivate: boolean
  /** Host names or addresses the operator allows even when they are private (`--allow-webhook-host`). */
  allowedHosts?: readonly string[]
}

export const OPEN_POLICY: AddressPolicy = {allowPrivate: true}

export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').toLowerCase()
}

function namedByOperator(policy: AddressPolicy, hostname: string): boolean {
  const host = bareHost(hostname)
  return (policy.allowedHosts ?? []).some((allowed) => bareHost(allowed) === host)
}

/**
 * Why `hostname` may not be called as written (an address literal or localhost that is not
 * public), or undefined. Names are checked again after resolution (see guardedLookup).
 */
export function refusedHost(hostname: string, policy: AddressPolicy): string | undefined {
  if (policy.allowPrivate || namedByOperator(policy, hostname)) return undefined
  const host = bareHost(hostname)
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is this machine`
  if (isIP(host) && !isPublicAddress(host)) return `${host} is not a public address`
  return undefined
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for http.request that refuses names resolving to non-public addresses, so the check
 * applies to the address actually connected to (a name that resolves differently later cannot slip past).
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, {...options, all: true}, (error, addresses) => {
      if (error) return callback(error, '')
      const allowed = policy.allowPrivate || namedByOperator(policy, hostname)
      const refused = allowed ? undefined : addresses.find((entry) => !isPublicAddress(entry.address))
      if (refused) {
        const failure: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${refused.address}, which is not a public address`)
        failure.code = 'EWEBHOOKADDRESS'
        return callback(failure, '')
      }
      if (options.all) return callback(null, addresses)
      const [first] = addresses
      callback(null, first.address, first.family)
    })
  }
}
