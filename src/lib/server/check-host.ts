import type {IncomingMessage} from 'node:http'
import {isIP} from 'node:net'
import {EngineError} from '../errors/engine-error.js'

/** `[::1]` -> `::1`, `::ffff:127.0.0.1` -> `127.0.0.1`, `Example.COM.` -> `example.com`. */
export function normalizeHostName(name: string): string {
  const bare = name.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  return bare.startsWith('::ffff:') && isIP(bare.slice(7)) === 4 ? bare.slice(7) : bare
}

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || (isIP(address) === 4 && address.startsWith('127.'))
}

/** Parses a Host header value (`name`, `name:port`, `[v6]:port`); undefined when it is not one. */
export function parseHostHeader(value: string): {name: string; port: number} | undefined {
  if (!/^[^\s/?#@\\]+$/.test(value)) return undefined
  try {
    const url = new URL(`http://${value}`)
    return {name: normalizeHostName(url.hostname), port: url.port === '' ? 80 : Number(url.port)}
  } catch {
    return undefined
  }
}

/**
 * Validates a `--allowed-host` entry: a host name or address, optionally with `:port`. Without a
 * port it matches that name on any port (a reverse proxy in front of the server usually changes it).
 */
export function parseAllowedHost(entry: string): {name: string; port?: number} | undefined {
  const parsed = parseHostHeader(entry.trim())
  if (!parsed || parsed.name === '') return undefined
  return /:\d+$/.test(entry.trim()) ? parsed : {name: parsed.name}
}

/**
 * Throws MISDIRECTED_REQUEST unless the Host header names the address and port the connection
 * arrived on (`localhost` too, when that address is loopback), or an `--allowed-host`. A web page
 * whose own host name was re-pointed at this machine (DNS rebinding) sends its own name as Host,
 * so it is refused although its requests reach the socket.
 */
export function assertHostAllowed(req: IncomingMessage, allowedHosts: readonly string[]): void {
  const header = req.headers.host ?? ''
  const host = parseHostHeader(header)
  const localAddress = normalizeHostName(req.socket.localAddress ?? '')
  const localPort = req.socket.localPort
  if (host) {
    const sameSocket = host.port === localPort && (host.name === localAddress || (host.name === 'localhost' && isLoopbackAddress(localAddress)))
    const listed = allowedHosts.some((entry) => {
      const allowed = parseAllowedHost(entry)
      return allowed !== undefined && allowed.name === host.name && (allowed.port === undefined || allowed.port === host.port)
    })
    if (sameSocket || listed) return
  }
  throw new EngineError(
    'MISDIRECTED_REQUEST',
    `the Host header "${header}" does not name this server (${localAddress.includes(':') ? `[${localAddress}]` : localAddress}:${localPort}); ` +
      'requests must address the server by its own address, or by a name given to engine serve with --allowed-host',
    {host: header},
  )
}
