import {rm, writeFile} from 'node:fs/promises'
import {basename, dirname, join, resolve} from 'node:path'
import {parseComposition} from '../compose/parse-composition.js'
import {readCompositionFile} from '../compose/read-composition-file.js'
import {REFERENCE_SIZE, referenceComposition} from './reference-composition.js'

export interface BenchmarkComposition {
  /** File to render. */
  path: string
  /** How results name it: the path the user gave, or "built-in reference". */
  label: string
  /** Removes whatever was written for the benchmark. */
  cleanup(): Promise<void>
}

export const REFERENCE_LABEL = 'built-in reference'
/** `--quick` measures the reference at this size. */
export const QUICK_SIZE = {width: 640, height: 360} as const

/**
 * The composition to measure, at most `durationSeconds` long. The built-in reference is written
 * into `workDir`. A longer composition of the user's is copied, with a shorter root
 * `data-duration`, next to the original (so its relative URLs still resolve); the copy is removed
 * by `cleanup`.
 */
export async function benchmarkComposition(options: {composition?: string; durationSeconds: number; quick: boolean; workDir: string}): Promise<BenchmarkComposition> {
  const {composition, durationSeconds} = options
  if (composition === undefined) {
    const path = join(options.workDir, 'reference.html')
    await writeFile(path, referenceComposition({...(options.quick ? QUICK_SIZE : REFERENCE_SIZE), durationSeconds}))
    return {path, label: REFERENCE_LABEL, cleanup: async () => {}}
  }
  const parsed = parseComposition(await readCompositionFile(resolve(composition), 'composition'))
  const duration = parsed.duration.value
  if (!parsed.root || duration === undefined || duration <= durationSeconds) return {path: composition, label: composition, cleanup: async () => {}}
  parsed.$(parsed.root).attr('data-duration', String(durationSeconds))
  const path = join(dirname(resolve(composition)), `.engine-benchmark-${process.pid}-${basename(composition)}`)
  await writeFile(path, parsed.$.html())
  return {path, label: composition, cleanup: () => rm(path, {force: true})}
}
