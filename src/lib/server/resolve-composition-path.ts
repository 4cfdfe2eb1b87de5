import {realpath, stat} from 'node:fs/promises'
import {isAbsolute, relative, resolve, sep} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {isHiddenPath} from '../sandbox/project-file.js'

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel !== '..' && !rel.startsWith('..' + sep) && !isAbsolute(rel)
}

/**
 * The real path of a requested composition, which must be a file inside `root` (itself a real
 * path). The path is checked as written (so that `../` never reveals whether something exists
 * outside) and again after resolving symlinks (so that a link cannot lead out of the root). A
 * dot-file or a file in a dot-folder (`.env`, `.git/…`) is refused before anything is read.
 */
export async function resolveCompositionPath(root: string, requested: string): Promise<string> {
  const outside = () =>
    new EngineError('PATH_OUTSIDE_ROOT', `body field "composition": "${requested}" is outside the server root; give a path relative to the server's --root`, {
      composition: requested,
    })
  const hidden = () =>
    new EngineError('PATH_OUTSIDE_ROOT', `body field "composition": "${requested}" is a dot-file or inside a dot-folder, which the server never reads; give a composition outside them`, {
      composition: requested,
    })
  const lexical = resolve(root, requested)
  if (!isInside(root, lexical)) throw outside()
  if (isHiddenPath(root, lexical)) throw hidden()
  let real: string
  try {
    real = await realpath(lexical)
  } catch {
    throw new EngineError('COMPOSITION_NOT_FOUND', `body field "composition": "${requested}" does not exist in the server root`, {
      composition: requested,
    })
  }
  if (!isInside(root, real)) throw outside()
  if (isHiddenPath(root, real)) throw hidden()
  if (!(await stat(real)).isFile()) {
    throw new EngineError('COMPOSITION_NOT_FOUND', `body field "composition": "${requested}" is not a file`, {composition: requested})
  }
  return real
}
