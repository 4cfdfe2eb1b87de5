import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import ipaddr from 'ipaddr.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {refusedHost} from '../../src/lib/notify/address-policy.js'
import {isPublicAddress, NON_PUBLIC_IPV4, NON_PUBLIC_IPV6, nonPublicReason} from '../../src/lib/sandbox/address-policy.js'
import {fetchRemote} from '../../src/lib/sandbox/fetch-remote.js'

/** An address inside a block: its network address plus two (past ::1 in ::/96); a block of one is the address itself. */
function inside(cidr: string): string {
  const [network, prefix] = ipaddr.parseCIDR(cidr)
  const bytes = network.toByteArray()
  if (prefix < bytes.length * 8 - 1) bytes[bytes.length - 1] += 2
  return ipaddr.fromByteArray(bytes).toString()
}

describe('what counts as a public address: every block of IANA special-purpose registries that is not globally reachable is refused', () => {
  it.each([...NON_PUBLIC_IPV4, ...NON_PUBLIC_IPV6])('%s (%s) is not public', (cidr, name) => {
    const address = inside(cidr)
    expect(isPublicAddress(address), address).toBe(false)
    expect(nonPublicReason(address)).toBe(name)
  })

  it.each([
    ['::7f00:1', 'IPv4-compatible (deprecated)'],
    // Written with a dotted quad, ipaddr.js reads these as IPv4-mapped: refused for the IPv4 inside.
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local (cloud metadata)'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata)'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['4000::1', 'reserved (outside global unicast 2000::/3)'],
    ['not-an-ip', 'not an IP address'],
  ])('%s, which carries or is a non-public address, is refused (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason)
  })

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true)
  })
})

describe('pages and webhooks refuse IPv4-compatible and embedded loopback literals before connecting', () => {
  let cache: string
  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'engine-address-policy-'))
  })
  afterAll(async () => {
    await rm(cache, {recursive: true, force: true})
  })

  it('a page URL naming [::7f00:1], [64:ff9b::7f00:1] or [2002:7f00:1::1] is REQUEST_BLOCKED, not tried', async () => {
    const network = {publicUrls: true, privateAddresses: false}
    for (const host of ['[::7f00:1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]', '[::ffff:7f00:1]']) {
      await expect(fetchRemote(`http://${host}:9/x.png`, {network, env: {...process.env, ENGINE_CACHE_DIR: cache}}), host).rejects.toMatchObject({code: 'REQUEST_BLOCKED'})
    }
  })

  it('a server refuses such a webhook URL at the door', () => {
    for (const host of ['[::7f00:1]', '[::a9fe:a9fe]', '[64:ff9b::a9fe:a9fe]', '[2002:a00:1::1]']) {
      expect(refusedHost(host, {allowPrivate: false}), host).toMatch(/is not a public address/)
    }
  })
})
