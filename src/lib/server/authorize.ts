import {createHash, timingSafeEqual} from 'node:crypto'
import type {IncomingMessage} from 'node:http'
import {isIP} from 'node:net'
import {EngineError} from '../errors/engine-error.js'

/** Addresses only this machine can reach; anything else needs a token. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare === '::1') return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  return bare.startsWith('::ffff:127.')
}

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Throws UNAUTHORIZED unless the request carries `Authorization: Bearer <token>`. */
export function assertAuthorized(req: IncomingMessage, token: string): void {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')
  // Comparing digests keeps the comparison constant-time whatever the lengths.
  if (!match || !timingSafeEqual(digest(match[1].trim()), digest(token))) {
    throw new EngineError(
      'UNAUTHORIZED',
      match ? 'the bearer token is wrong' : 'this server requires "Authorization: Bearer <token>" (the token given to engine serve with --token or ENGINE_SERVER_TOKEN)',
    )
  }
}
