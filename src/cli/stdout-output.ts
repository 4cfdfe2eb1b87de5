import {createReadStream} from 'node:fs'
import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {pipeline} from 'node:stream/promises'
import {EngineError} from '../lib/errors/engine-error.js'
import {makeTempDirectory} from '../lib/files/temp-directory.js'

/** `-o -`: the output goes to standard output. */
export const STDOUT_OUTPUT = '-'

/**
 * Options a render to standard output cannot have, each with the flag that asks for it: they write
 * more than one file, or write to standard output themselves.
 */
export function assertStdoutOutput(conflicts: Record<string, boolean>): void {
  for (const [flag, present] of Object.entries(conflicts)) {
    if (present) throw new EngineError('INVALID_FLAG', `--output - writes the file to standard output, which ${flag} cannot share; give --output a file name instead`, {output: STDOUT_OUTPUT, flag})
  }
  if (process.stdout.isTTY) {
    throw new EngineError('INVALID_FLAG', '--output -: standard output is a terminal, not a file; pipe it (`| ffprobe -`) or redirect it (`> out.mp4`)', {output: STDOUT_OUTPUT})
  }
}

/**
 * Renders into a private temporary file with the format's extension, then copies the finished file
 * to standard output. Nothing is streamed while it renders: an MP4 or MOV is only readable once its
 * index is written at the end, and a failed render must leave the reader nothing rather than a part.
 */
export async function renderToStdout<T>(extension: string, render: (path: string) => Promise<T>): Promise<T> {
  const directory = await makeTempDirectory('stdout')
  try {
    const result = await render(join(directory, `output${extension}`))
    await pipeline(createReadStream(join(directory, `output${extension}`)), process.stdout, {end: false})
    return result
  } finally {
    await rm(directory, {recursive: true, force: true})
  }
}
