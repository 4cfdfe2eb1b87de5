import {readFile} from 'node:fs/promises'
import {EngineError} from '../errors/engine-error.js'

/** Reads a composition file; a missing or unreadable file is a COMPOSITION_NOT_FOUND naming `what`. */
export async function readCompositionFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? (error as Error).message})`
    throw new EngineError('COMPOSITION_NOT_FOUND', `${what}: ${path} ${reason}`, {path})
  }
}
