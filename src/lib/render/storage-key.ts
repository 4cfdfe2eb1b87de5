import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'

/** S3's own limit on a key's length, in bytes of UTF-8. */
export const MAX_KEY_BYTES = 1024

/**
 * Why a key is refused, or undefined when it is a plain relative path of `/`-separated names. S3
 * itself accepts any bytes, but a key is also a path wherever objects become files (the local
 * stack, a download next to the project), so `..`, `.`, empty segments, a leading `/`, backslashes
 * and control characters are refused everywhere, before anything is written.
 */
export function storageKeyProblem(key: string): string | undefined {
  if (key === '') return 'is empty'
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return `is longer than ${MAX_KEY_BYTES} bytes`
  if (key.includes('\\')) return 'contains a backslash'
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'contains a control character'
  if (key.startsWith('/')) return 'is absolute (starts with "/")'
  const segments = key.split('/')
  if (segments.some((segment) => segment === '..')) return 'has a ".." segment'
  if (segments.some((segment) => segment === '.')) return 'has a "." segment'
  if (segments.some((segment) => segment === '')) return 'has an empty segment ("//" or a trailing "/")'
  return undefined
}

const FIX = 'use a relative path of names separated by "/", such as out/ada.mp4'

/** The zod form of the rule, for schemas that read keys (execution input, batch lines). */
export const storageKeySchema = z.string().superRefine((key, context) => {
  const problem = storageKeyProblem(key)
  if (problem) context.addIssue({code: 'custom', message: `"${key.slice(0, 80)}" ${problem}; ${FIX}`})
})

/** Throws INVALID_STORAGE_KEY naming `field` (`--output-key`, `outputKey`) unless `key` is a safe key. */
export function assertStorageKey(key: string, field: string): string {
  const problem = storageKeyProblem(key)
  if (problem) throw new EngineError('INVALID_STORAGE_KEY', `${field}: "${key.slice(0, 200)}" ${problem}; ${FIX}`, {field, key})
  return key
}
