import {sep} from 'node:path'

/** Longest name of one file or folder most file systems keep (ext4, APFS, NTFS: 255 bytes or units). */
export const MAX_NAME_BYTES = 255
/** What the partial file beside an output adds to its name: `.<name>.<8 hex>.partial.<ext>` (see partialPath). */
const PARTIAL_NAME_EXTRA = '..12345678.partial.jpeg'.length
/** Longest output file name: its partial file must fit too. */
export const MAX_OUTPUT_NAME_BYTES = MAX_NAME_BYTES - PARTIAL_NAME_EXTRA

/**
 * Why an output path cannot be written, by the length of its names alone, or undefined. Checked
 * before anything is rendered: the system would only say ENAMETOOLONG when the file is opened.
 */
export function outputNameProblem(path: string): string | undefined {
  const names = path.split(sep).filter((name) => name !== '')
  const last = names.at(-1) ?? ''
  const long = names.slice(0, -1).find((name) => Buffer.byteLength(name) > MAX_NAME_BYTES)
  if (long !== undefined) return `the folder name "${long.slice(0, 40)}…" is ${Buffer.byteLength(long)} bytes long; a name has at most ${MAX_NAME_BYTES}`
  if (Buffer.byteLength(last) > MAX_OUTPUT_NAME_BYTES) return `the file name "${last.slice(0, 40)}…" is ${Buffer.byteLength(last)} bytes long; an output's name has at most ${MAX_OUTPUT_NAME_BYTES} (its partial file beside it needs the rest of ${MAX_NAME_BYTES})`
  return undefined
}
