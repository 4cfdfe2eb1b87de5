import type {IncomingMessage, ServerResponse} from 'node:http'
import {storageKeyProblem} from 'html-video-engine/internal/lib/render/storage-key.js'
import {sendRefusal} from './request-guard.js'

/** `/bucket/key` as sent, before any normalisation (URL parsing would fold `..` away). */
function rawPathParts(url: string): {bucket: string; key?: string} | undefined {
  const path = url.split('?')[0]
  const match = /^\/([^/]*)(?:\/(.*))?$/s.exec(path)
  if (!match) return undefined
  try {
    return {bucket: decodeURIComponent(match[1]), key: match[2] === undefined || match[2] === '' ? undefined : decodeURIComponent(match[2])}
  } catch {
    return undefined
  }
}

/**
 * Why a request to the local S3 must be refused, or undefined. s3rver stores each object as a
 * file named after its key, so a key with `..` (in the path or in a copy source) would read or
 * write outside the stack's directory; such keys, and absolute, empty or backslash segments, are
 * refused before s3rver sees them.
 */
export function unsafeKeyProblem(request: IncomingMessage): string | undefined {
  const parts = rawPathParts(request.url ?? '/')
  if (!parts) return `the request path ${JSON.stringify(request.url)} cannot be decoded`
  if (parts.bucket !== '' && (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(parts.bucket) || parts.bucket.includes('..'))) {
    return `bucket name ${JSON.stringify(parts.bucket)} is not a valid bucket name`
  }
  if (parts.key !== undefined) {
    const problem = storageKeyProblem(parts.key)
    if (problem) return `key ${JSON.stringify(parts.key)} ${problem}`
  }
  const copySource = request.headers['x-amz-copy-source']
  if (typeof copySource === 'string') {
    const source = rawPathParts(copySource.startsWith('/') ? copySource : `/${copySource}`)
    const problem = !source || source.key === undefined ? 'names no object' : storageKeyProblem(source.key)
    if (problem) return `copy source ${JSON.stringify(copySource)} ${problem}`
  }
  return undefined
}

/** Answers 400 with an S3-style XML error. */
export function sendInvalidKey(request: IncomingMessage, response: ServerResponse, problem: string): void {
  sendRefusal(request, response, {
    status: 400,
    code: 'InvalidArgument',
    message: `the local stack refuses this request: ${problem}; keys must be relative paths of names separated by "/"`,
  })
}
