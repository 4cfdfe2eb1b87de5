import {amzDate as formatAmzDate, encodeRfc3986, signString, SIGV4_ALGORITHM, stringToSign} from './sigv4.js'

export interface SigningCredentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

export interface PresignRequest {
  /** `https://host` (or the local stack's `http://127.0.0.1:port`), no path. */
  origin: string
  /** The object's path, already URI-encoded (`/bucket/key` path-style, `/key` on a bucket's host). */
  path: string
  region: string
  credentials: SigningCredentials
  expiresInSeconds: number
  now?: Date
}

/**
 * A GET URL signed with Signature Version 4 in the query string, as S3 documents it ("Authenticating
 * Requests: Using Query Parameters"): anyone holding it may read the object until it expires. Signed
 * here rather than through @aws-sdk/s3-request-presigner, which the engine does not depend on.
 */
export function presignGetUrl(request: PresignRequest): string {
  const url = new URL(request.origin)
  const now = request.now ?? new Date()
  const amzDate = formatAmzDate(now)
  const day = amzDate.slice(0, 8)
  const scope = `${day}/${request.region}/s3/aws4_request`
  const query: [string, string][] = [
    ['X-Amz-Algorithm', SIGV4_ALGORITHM],
    ['X-Amz-Credential', `${request.credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(request.expiresInSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ]
  if (request.credentials.sessionToken) query.push(['X-Amz-Security-Token', request.credentials.sessionToken])
  const canonicalQuery = query
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
    .sort()
    .join('&')
  const canonicalRequest = ['GET', request.path, canonicalQuery, `host:${url.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n')
  const signature = signString(request.credentials.secretAccessKey, {day, region: request.region, service: 's3'}, stringToSign(amzDate, scope, canonicalRequest))
  return `${url.protocol}//${url.host}${request.path}?${canonicalQuery}&X-Amz-Signature=${signature}`
}

/** An object key as a URI path: each segment encoded, the slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeRfc3986).join('/')
}
