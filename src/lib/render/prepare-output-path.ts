import {open, rm} from 'node:fs/promises'
import {dirname} from 'node:path'
import {partialPath, removePartialsOf} from '../encode/partial-path.js'
import {EngineError} from '../errors/engine-error.js'
import {isNoSpace, noSpaceError} from '../errors/no-space.js'
import {makeDirectory} from '../files/make-directory.js'
import {outputNameProblem} from './output-name-length.js'

/**
 * Makes sure the output can be written before anything is captured: creates its folder, removes the
 * partial files a killed render of the same output left there, and writes (and removes) a probe
 * file, so a read-only or missing folder is an OUTPUT_NOT_WRITABLE now, not an error after minutes
 * of capture. Returns the leftovers it removed; `sweep: false` leaves them to a caller that already
 * swept (reading the folder per output would cost a batch of N rows in one folder N² entries).
 */
export async function prepareOutputPath(output: string, {sweep = true}: {sweep?: boolean} = {}): Promise<string[]> {
  const folder = dirname(output)
  const tooLong = outputNameProblem(output)
  if (tooLong) throw new EngineError('INVALID_FLAG', `--output: ${tooLong}; choose a shorter name`, {output})
  const refuse = (error: unknown) => {
    if (isNoSpace(error)) return noSpaceError(folder, error)
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    // mkdir says EEXIST or ENOTDIR when a file stands where a folder of the path should be.
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way' : code
    return new EngineError('OUTPUT_NOT_WRITABLE', `--output: cannot write into ${folder} (${why}); choose a folder you can write to`, {output, folder, code})
  }
  try {
    await makeDirectory(folder)
  } catch (error) {
    throw refuse(error)
  }
  const removed = sweep ? await removePartialsOf(output) : []
  const probe = partialPath(output)
  try {
    await (await open(probe, 'wx')).close()
  } catch (error) {
    throw refuse(error)
  } finally {
    await rm(probe, {force: true})
  }
  return removed
}
