import {realpath, stat} from 'node:fs/promises'
import {relative, resolve, sep} from 'node:path'

/**
 * What a URL path names inside a project: a file to serve, nothing, something outside it, or a
 * dot-file (or a file in a dot-folder), which is never served.
 */
export type ProjectFile = {kind: 'file'; path: string} | {kind: 'missing'} | {kind: 'outside'; path: string} | {kind: 'hidden'; path: string}

/**
 * True when a path below a root passes through a name starting with `.`: `.env`, `.git/config`,
 * `.npmrc`, `.ssh/…`. Projects keep secrets there, and no composition needs them.
 */
export function isHiddenPath(root: string, path: string): boolean {
  return relative(root, path)
    .split(sep)
    .some((segment) => segment.startsWith('.') && segment !== '..')
}

/** True when `path` is `root` or below it (both absolute and already resolved). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

/**
 * The file a decoded URL path (`/images/logo.png`) names under `root`. Symlinks are followed and
 * the real path must stay in the real root, so a link inside the project cannot reach out of it;
 * `..` cannot climb above the root because the path is resolved from it first. A dot-file or a
 * file under a dot-folder is `hidden`, whether named directly or through a link, and whether or
 * not it exists.
 */
export async function projectFile(root: string, urlPath: string): Promise<ProjectFile> {
  const lexical = resolve(root, '.' + (urlPath.startsWith('/') ? urlPath : '/' + urlPath))
  if (!isInside(resolve(root), lexical)) return {kind: 'outside', path: lexical}
  if (isHiddenPath(resolve(root), lexical)) return {kind: 'hidden', path: lexical}
  const real = await realpath(lexical).catch(() => undefined)
  if (real === undefined) return {kind: 'missing'}
  const realRoot = await realpath(root)
  if (!isInside(realRoot, real)) return {kind: 'outside', path: real}
  if (isHiddenPath(realRoot, real)) return {kind: 'hidden', path: real}
  const found = await stat(real).catch(() => undefined)
  return found?.isFile() ? {kind: 'file', path: real} : {kind: 'missing'}
}
