import {createHash, createHmac} from 'node:crypto'

/**
 * The pieces of AWS Signature Version 4 the local stack needs to check a request's signature.
 * Written out rather than taken from @smithy/signature-v4, whose canonicalisation is protected API:
 * it signs requests but offers no way to verify one. Signing (output URLs) uses the SDK's presigner.
 */
export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256'

/** `20260101T120000Z`, SigV4's long date. */
export function amzDate(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')
}

/** encodeURIComponent plus the characters SigV4 also requires encoded. */
export function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest()
}

/** The string-to-sign's signature: HMAC with the key derived from the secret, day, region and service. */
export function signString(secretAccessKey: string, scope: {day: string; region: string; service: string}, stringToSign: string): string {
  let key: Buffer = hmac(`AWS4${secretAccessKey}`, scope.day)
  for (const part of [scope.region, scope.service, 'aws4_request']) key = hmac(key, part)
  return createHmac('sha256', key).update(stringToSign).digest('hex')
}

/** The string to sign for a canonical request (already joined with newlines). */
export function stringToSign(longDate: string, scope: string, canonicalRequest: string): string {
  return [SIGV4_ALGORITHM, longDate, scope, sha256Hex(canonicalRequest)].join('\n')
}
