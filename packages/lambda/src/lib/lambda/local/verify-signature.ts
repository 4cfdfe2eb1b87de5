import {timingSafeEqual} from 'node:crypto'
import type {IncomingHttpHeaders} from 'node:http'
import {encodeRfc3986, sha256Hex, signString, SIGV4_ALGORITHM, stringToSign} from '../sigv4.js'

/** What of a request the signature covers, as it arrived (path and query undecoded). */
export interface ArrivedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  /** The body, for services whose clients sign its hash without sending it in a header. */
  body?: Buffer
}

/** AWS refuses a signature dated further than this from its clock. */
const MAX_CLOCK_SKEW_MS = 15 * 60_000
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD'

interface Claim {
  accessKeyId: string
  longDate: string
  scope: {day: string; region: string; service: string}
  signedHeaders: string[]
  signature: string
  payloadHash: string
  /** Query pairs that are part of the canonical query (a presigned URL's signature excluded). */
  query: [string, string][]
}

export interface SigningKey {
  accessKeyId: string
  secretAccessKey: string
}

/**
 * Why a request is not signed (Signature Version 4, in the Authorization header or a presigned
 * URL's query) with `key`, or undefined when it is.
 */
export function signatureProblem(request: ArrivedRequest, key: SigningKey, now: number = Date.now()): string | undefined {
  const [rawPath, rawQuery = ''] = splitOnce(request.url, '?')
  const query = parseQuery(rawQuery)
  if (query === undefined) return 'its query string cannot be decoded'
  const claim = request.headers.authorization !== undefined ? headerClaim(request, query) : queryClaim(request, query, now)
  if (typeof claim === 'string') return claim
  if (claim.accessKeyId !== key.accessKeyId) return `its access key id is not ${key.accessKeyId}`
  const signedAt = parseLongDate(claim.longDate)
  if (signedAt === undefined || claim.longDate.slice(0, 8) !== claim.scope.day) return `its date "${claim.longDate}" is not a SigV4 date matching its credential scope`
  if (Math.abs(now - signedAt) > MAX_CLOCK_SKEW_MS && request.headers.authorization !== undefined) return 'it was signed more than 15 minutes away from this clock'
  if (!claim.signedHeaders.includes('host')) return 'its signed headers do not include host'

  const headerLines: string[] = []
  for (const name of claim.signedHeaders) {
    const value = request.headers[name]
    if (value === undefined) return `signed header ${name} is missing`
    headerLines.push(`${name}:${(Array.isArray(value) ? value.join(',') : value).trim().replace(/\s+/g, ' ')}`)
  }
  const canonicalRequest = [
    request.method,
    canonicalPath(rawPath, claim.scope.service),
    canonicalQuery(claim.query),
    headerLines.join('\n') + '\n',
    claim.signedHeaders.join(';'),
    claim.payloadHash,
  ].join('\n')
  const scope = `${claim.scope.day}/${claim.scope.region}/${claim.scope.service}/aws4_request`
  const expected = Buffer.from(signString(key.secretAccessKey, claim.scope, stringToSign(claim.longDate, scope, canonicalRequest)))
  const given = Buffer.from(claim.signature)
  return given.length === expected.length && timingSafeEqual(given, expected) ? undefined : 'its signature does not match'
}

function headerClaim(request: ArrivedRequest, query: [string, string][]): Claim | string {
  const header = String(request.headers.authorization)
  if (!header.startsWith(`${SIGV4_ALGORITHM} `)) return `its Authorization header is not ${SIGV4_ALGORITHM}`
  const fields = Object.fromEntries(
    header
      .slice(SIGV4_ALGORITHM.length + 1)
      .split(',')
      .map((part) => splitOnce(part.trim(), '=')),
  )
  const credential = parseCredential(fields.Credential)
  const longDate = request.headers['x-amz-date']
  if (!credential || !fields.SignedHeaders || !fields.Signature || typeof longDate !== 'string') return 'its Authorization header lacks a credential, signed headers, signature or x-amz-date'
  const hashHeader = request.headers['x-amz-content-sha256']
  const payloadHash = typeof hashHeader === 'string' ? hashHeader : request.body ? sha256Hex(request.body) : sha256Hex('')
  return {...credential, longDate, signedHeaders: fields.SignedHeaders.split(';'), signature: fields.Signature, payloadHash, query}
}

function queryClaim(request: ArrivedRequest, query: [string, string][], now: number): Claim | string {
  const get = (name: string) => query.find(([key]) => key === name)?.[1]
  if (get('X-Amz-Algorithm') === undefined) return 'it carries no signature (neither an Authorization header nor a presigned URL)'
  if (get('X-Amz-Algorithm') !== SIGV4_ALGORITHM) return `its X-Amz-Algorithm is not ${SIGV4_ALGORITHM}`
  const credential = parseCredential(get('X-Amz-Credential'))
  const longDate = get('X-Amz-Date')
  const signedHeaders = get('X-Amz-SignedHeaders')
  const signature = get('X-Amz-Signature')
  const expires = Number(get('X-Amz-Expires'))
  if (!credential || !longDate || !signedHeaders || !signature || !Number.isInteger(expires) || expires < 1) return 'its presigned query lacks a credential, date, expiry, signed headers or signature'
  const signedAt = parseLongDate(longDate)
  if (signedAt !== undefined && (now > signedAt + expires * 1000 || signedAt - now > MAX_CLOCK_SKEW_MS)) return 'its presigned URL has expired'
  const hashHeader = request.headers['x-amz-content-sha256']
  return {
    ...credential,
    longDate,
    signedHeaders: signedHeaders.split(';'),
    signature,
    payloadHash: typeof hashHeader === 'string' ? hashHeader : UNSIGNED_PAYLOAD,
    query: query.filter(([key]) => key !== 'X-Amz-Signature'),
  }
}

/** `AKID/20260101/us-east-1/s3/aws4_request` -> the key id and scope, or undefined. */
function parseCredential(credential: string | undefined): {accessKeyId: string; scope: Claim['scope']} | undefined {
  const parts = credential?.split('/')
  if (!parts || parts.length !== 5 || parts[4] !== 'aws4_request' || !/^\d{8}$/.test(parts[1])) return undefined
  return {accessKeyId: parts[0], scope: {day: parts[1], region: parts[2], service: parts[3]}}
}

function parseLongDate(text: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text)
  return match ? Date.UTC(+match[1], +match[2] - 1, +match[3], +match[4], +match[5], +match[6]) : undefined
}

/** S3 signs the path as sent; the other services sign it normalised and encoded once more. */
function canonicalPath(rawPath: string, service: string): string {
  if (service === 's3') return rawPath
  const segments: string[] = []
  for (const segment of rawPath.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  const normalized = `/${segments.join('/')}${segments.length > 0 && rawPath.endsWith('/') ? '/' : ''}`
  return encodeRfc3986(normalized).replace(/%2F/g, '/')
}

function canonicalQuery(pairs: [string, string][]): string {
  return pairs
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
}

function parseQuery(raw: string): [string, string][] | undefined {
  try {
    return raw
      .split('&')
      .filter((part) => part !== '')
      .map((part) => splitOnce(part, '=').map((text) => decodeURIComponent(text)) as [string, string])
  } catch {
    return undefined
  }
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator)
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)]
}
