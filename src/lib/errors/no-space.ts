import {statfs} from 'node:fs/promises'
import {dirname} from 'node:path'
import {EngineError, isEngineError} from './engine-error.js'

/** Free space under which a failed write is put down to a full disk. */
const FULL_BELOW_BYTES = 1024 * 1024

const NO_SPACE_TEXT = /no space left on device/i

/** Whether a failure (a Node error, or text such as ffmpeg's stderr) means the disk is full. */
export function isNoSpace(failure: unknown): boolean {
  if (typeof failure === 'string') return NO_SPACE_TEXT.test(failure)
  return (failure as NodeJS.ErrnoException | undefined)?.code === 'ENOSPC'
}

/** NO_SPACE naming the file that could not be written and what to do. */
export function noSpaceError(path: string, cause?: unknown): EngineError {
  return new EngineError(
    'NO_SPACE',
    `no space left on device while writing ${path}; free space on that disk, or choose another --output (temporary files go to TMPDIR)`,
    {path},
    {cause},
  )
}

/**
 * The error to report for a failed write of `path`: NO_SPACE when the failure says so, or when the
 * disk holding `path` is (all but) full afterwards. Encoders do not always say it: ffmpeg may exit 0
 * with a truncated file, whose check then fails for a reason that hides the real one.
 */
export async function explainFullDisk(error: unknown, path: string): Promise<unknown> {
  if (isEngineError(error, 'NO_SPACE') || isEngineError(error, 'CANCELLED')) return error
  if (isNoSpace(error)) return noSpaceError(path, error)
  const free = await statfs(dirname(path)).then(
    (info) => info.bavail * info.bsize,
    () => undefined,
  )
  return free !== undefined && free < FULL_BELOW_BYTES ? noSpaceError(path, error) : error
}
