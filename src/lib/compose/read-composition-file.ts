import {existsSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join, relative, sep} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {packageRoot} from '../sandbox/package-root.js'

/** Reads a composition file; a missing or unreadable file is a COMPOSITION_NOT_FOUND naming `what`. */
export async function readCompositionFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === 'ENOENT' ? `does not exist${shippedExampleHint(path)}` : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? (error as Error).message})`
    throw new EngineError('COMPOSITION_NOT_FOUND', `${what}: ${path} ${reason}`, {path})
  }
}

/**
 * `engine render examples/hello/index.html` as the README's first step, run outside a checkout:
 * the examples ship inside engine's package, which an install puts in its prefix, not here.
 */
function shippedExampleHint(path: string): string {
  const asked = relative(process.cwd(), path)
  if (!asked.startsWith(`examples${sep}`)) return ''
  const shipped = join(packageRoot(), asked)
  return shipped !== path && existsSync(shipped) ? `; engine's examples come with its package: \`engine render ${shipped}\` (or start a project of your own with \`engine init\`)` : ''
}
