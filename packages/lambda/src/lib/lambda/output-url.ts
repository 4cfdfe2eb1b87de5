import {GetObjectCommand, type S3Client} from '@aws-sdk/client-s3'
import {getSignedUrl} from '@aws-sdk/s3-request-presigner'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {encodeRfc3986} from './sigv4.js'
import {contentDisposition} from './output-settings.js'

/**
 * What HTTPS URL a finished render's output gets: `presigned` (default) signs one that anyone
 * holding it may use until it expires; `public` is the plain object URL, which only works when
 * the bucket lets anyone read (the engine never changes that); `private` gives none.
 */
export const OUTPUT_PRIVACY = ['presigned', 'public', 'private'] as const
export type OutputPrivacy = (typeof OUTPUT_PRIVACY)[number]

export const DEFAULT_URL_EXPIRES_SECONDS = 3600
/** SigV4's limit: a presigned URL lives at most 7 days (less with temporary credentials). */
export const MAX_URL_EXPIRES_SECONDS = 604_800

export interface OutputUrlOptions {
  privacy?: OutputPrivacy
  /** Lifetime of a presigned URL in seconds (default 3600, at most 604800). */
  urlExpiresInSeconds?: number
  /** The output's download name: a presigned URL asks S3 to answer with it as Content-Disposition. */
  downloadName?: string
}

export interface OutputUrl {
  url: string
  privacy: Exclude<OutputPrivacy, 'private'>
  /** When a presigned URL stops working. */
  expiresAt?: string
}

/** Refuses a privacy or lifetime no URL can have, naming the flag and the accepted values. */
export function checkOutputUrlOptions(options: OutputUrlOptions): Required<Omit<OutputUrlOptions, 'downloadName'>> {
  const privacy = options.privacy ?? 'presigned'
  if (!OUTPUT_PRIVACY.includes(privacy)) {
    throw new EngineError('INVALID_FLAG', `--privacy: "${privacy}" is not a privacy; pass one of ${OUTPUT_PRIVACY.join(', ')}`, {
      field: 'privacy',
      value: privacy,
      choices: OUTPUT_PRIVACY,
    })
  }
  const seconds = options.urlExpiresInSeconds ?? DEFAULT_URL_EXPIRES_SECONDS
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_URL_EXPIRES_SECONDS) {
    throw new EngineError(
      'INVALID_FLAG',
      `--url-expires: ${seconds} is not a URL lifetime; pass whole seconds from 1 to ${MAX_URL_EXPIRES_SECONDS} (7 days, the most S3 signs for)`,
      {field: 'url-expires', value: seconds},
    )
  }
  return {privacy, urlExpiresInSeconds: seconds}
}

/** The output's HTTPS URL as the privacy asks, signed with the credentials the client uses. */
export async function outputUrl(s3: S3Client, bucketName: string, key: string, options: OutputUrlOptions = {}): Promise<OutputUrl | undefined> {
  const {privacy, urlExpiresInSeconds} = checkOutputUrlOptions(options)
  if (privacy === 'private') return undefined
  if (privacy === 'public') {
    const endpoint = s3.config.isCustomEndpoint && s3.config.endpoint ? await s3.config.endpoint() : undefined
    const {origin, path} = objectLocation(endpoint, await s3.config.region(), bucketName, key)
    return {url: origin + path, privacy}
  }
  const now = new Date()
  // The client's own presigner: its endpoint rules, path style and credentials (session tokens included).
  const disposition = options.downloadName === undefined ? {} : {ResponseContentDisposition: contentDisposition(options.downloadName)}
  const url = await getSignedUrl(s3, new GetObjectCommand({Bucket: bucketName, Key: key, ...disposition}), {expiresIn: urlExpiresInSeconds, signingDate: now})
  return {url, privacy, expiresAt: new Date(now.getTime() + urlExpiresInSeconds * 1000).toISOString()}
}

interface Endpoint {
  protocol: string
  hostname: string
  port?: number
  path: string
}

/**
 * Where the object is reached: path-style under a custom endpoint (the local stack), else the
 * bucket's own host, or the regional host for bucket names with dots (no certificate covers those).
 */
function objectLocation(endpoint: Endpoint | undefined, region: string, bucketName: string, key: string): {origin: string; path: string} {
  const keyPath = `/${encodeKeyPath(key)}`
  if (endpoint) {
    const origin = `${endpoint.protocol}//${endpoint.hostname}${endpoint.port ? `:${endpoint.port}` : ''}`
    return {origin, path: `${endpoint.path.replace(/\/$/, '')}/${encodeKeyPath(bucketName)}${keyPath}`}
  }
  if (bucketName.includes('.')) return {origin: `https://s3.${region}.amazonaws.com`, path: `/${bucketName}${keyPath}`}
  return {origin: `https://${bucketName}.s3.${region}.amazonaws.com`, path: keyPath}
}

/** An object key as a URI path: each segment encoded, the slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeRfc3986).join('/')
}
