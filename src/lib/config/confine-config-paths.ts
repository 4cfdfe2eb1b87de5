import {lstat, readlink, realpath} from 'node:fs/promises'
import {basename, dirname, join, resolve} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {isHiddenPath, isInside} from '../sandbox/project-file.js'
import type {RenderOptionsInput} from '../plan/render-options.js'
import {TRUST_HOW} from './project-trust.js'

/**
 * Keys of a project config that name a file or folder engine reads or writes. `browserPath` names
 * one too, but a program to run is refused outright (TRUSTED_ONLY_KEYS), not confined.
 */
export const CONFIG_PATH_KEYS = {
  output: 'writes the render there',
  batch: 'reads its rows into the page',
  variablesFile: 'reads its values into the page',
} as const satisfies Partial<Record<keyof RenderOptionsInput, string>>

/** Standard input or output (`-`), not a file: the user's own pipe. */
const STDIO = '-'

/**
 * Refuses a path key of an untrusted project config that leads outside the folder holding the
 * config (`root`), through `..`, an absolute path or a symlink, or that names a dot-file or
 * dot-folder: a template folder from elsewhere must not make engine read a local secret into the
 * page or overwrite a file beside it. Relative values resolve from `cwd`, as they always have.
 */
export async function assertConfigPathsInside(options: RenderOptionsInput, root: string, cwd: string, field: (key: string) => string): Promise<void> {
  const realRoot = await realpath(root).catch(() => resolve(root))
  for (const [key, effect] of Object.entries(CONFIG_PATH_KEYS)) {
    const value = options[key as keyof typeof CONFIG_PATH_KEYS]
    if (value === undefined || value === STDIO) continue
    const lexical = resolve(cwd, value)
    const real = await realExistingPrefix(lexical)
    const problem = !isInside(resolve(root), lexical) || !isInside(realRoot, real) ? `leads outside the project (${realRoot})` : isHiddenPath(realRoot, real) ? 'names a dot-file or dot-folder' : undefined
    if (problem === undefined) continue
    throw new EngineError(
      'INVALID_CONFIG',
      `${field(key)}: "${value}" ${problem}; the key ${effect}, so a project's config may name only files inside its own folder, not a dot-file. Give the path with the flag yourself, or trust the project: ${TRUST_HOW}`,
      {key, value, root: realRoot},
    )
  }
}

/** Links followed before giving up, as the system's own ELOOP limit does. */
const MAX_LINKS = 40

/**
 * The path with symlinks resolved as far as it exists: an output that is not written yet lands
 * wherever its nearest existing folder really is, and a dangling link where it points (writing
 * through it would create its target).
 */
async function realExistingPrefix(path: string, links = 0): Promise<string> {
  try {
    return await realpath(path)
  } catch {
    const parent = dirname(path)
    if (parent === path) return path
    const realParent = await realExistingPrefix(parent, links)
    const link = await lstat(path).then((stats) => stats.isSymbolicLink(), () => false)
    if (link && links < MAX_LINKS) return realExistingPrefix(resolve(realParent, await readlink(path)), links + 1)
    return join(realParent, basename(path))
  }
}
