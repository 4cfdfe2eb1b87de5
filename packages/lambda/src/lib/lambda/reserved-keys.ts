import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {assertStorageKey} from 'html-video-engine/internal/lib/render/storage-key.js'
import {batchRowOf} from './batch/batch-ids.js'
import {BATCHES_PREFIX} from './batch/batch-records.js'
import {STACK_RECORD_KEY} from './stack-record.js'
import {RENDERS_PREFIX, SCRATCH_PREFIX, SITES_PREFIX} from './storage-keys.js'

/** Kept for the campaign render cache: content-addressed outputs that renders reuse. */
export const CACHE_PREFIX = 'cache/'

/**
 * The stack's own objects in its bucket: an output written there would replace a site, a render's
 * records, a batch's journal or the stack record itself.
 */
export const RESERVED_PREFIXES = [RENDERS_PREFIX, SITES_PREFIX, SCRATCH_PREFIX, BATCHES_PREFIX, CACHE_PREFIX] as const
export const RESERVED_KEYS = [STACK_RECORD_KEY] as const

/** Who writes the key: the render (its id, for its own default keys) and whether it goes to the stack's bucket. */
export interface KeyOwner {
  /** The render's id; a still has none. */
  renderId?: string
  /** The output goes to another bucket (`outputBucket`), which holds none of the stack's objects. */
  otherBucket?: boolean
}

/**
 * Why an output key is the stack's own, or undefined. A render's default key
 * (`renders/<renderId>/output<ext>`) and a batch row's (`batches/<batchId>/<index><ext>`) are the
 * only keys under those prefixes a render may write, and only its own.
 */
export function reservedKeyProblem(key: string, owner: KeyOwner = {}): string | undefined {
  if (owner.otherBucket) return undefined
  if (ownDefaultKey(key, owner.renderId)) return undefined
  if ((RESERVED_KEYS as readonly string[]).includes(key)) return `is the stack record`
  const prefix = RESERVED_PREFIXES.find((reserved) => key.startsWith(reserved) || key === reserved.slice(0, -1))
  return prefix === undefined ? undefined : `is under "${prefix}", which the stack keeps for its own objects (reserved: ${[...RESERVED_KEYS, ...RESERVED_PREFIXES].join(', ')})`
}

const EXTENSION = String.raw`(\.[A-Za-z0-9]{1,8})?`

function ownDefaultKey(key: string, renderId: string | undefined): boolean {
  if (renderId === undefined) return false
  if (new RegExp(`^${RENDERS_PREFIX}${escape(renderId)}/output${EXTENSION}$`).test(key)) return true
  const row = batchRowOf(renderId)
  return row !== undefined && new RegExp(`^${BATCHES_PREFIX}${escape(row.batchId)}/${row.index}${EXTENSION}$`).test(key)
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The one check of an output key, run where a render or still is asked for (SDK, CLI, a batch's
 * rows, `--dry-run`) and again in the function: the key rule, then the reserved keys.
 */
export function assertOutputKey(key: string, field: string, owner: KeyOwner = {}): string {
  assertStorageKey(key, field)
  const problem = reservedKeyProblem(key, owner)
  if (problem) {
    throw new EngineError('INVALID_STORAGE_KEY', `${field}: "${key.slice(0, 200)}" ${problem}; choose a key outside them, such as out/video.mp4`, {field, key})
  }
  return key
}
