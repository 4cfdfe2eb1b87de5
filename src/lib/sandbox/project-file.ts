import {realpath, stat} from 'node:fs/promises'
import {resolve, sep} from 'node:path'

/** What a URL path names inside a project: a file to serve, nothing, or something outside it. */
export type ProjectFile = {kind: 'file'; path: string} | {kind: 'missing'} | {kind: 'outside'; path: string}

/** True when `path` is `root` or below it (both absolute and already resolved). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

/**
 * The file a decoded URL path (`/images/logo.png`) names under `root`. Symlinks are followed and
 * the real path must stay in the real root, so a link inside the project cannot reach out of it;
 * `..` cannot climb above the root because the path is resolved from it first.
 */
export async function projectFile(root: string, urlPath: string): Promise<ProjectFile> {
  const lexical = resolve(root, '.' + (urlPath.startsWith('/') ? urlPath : '/' + urlPath))
  if (!isInside(resolve(root), lexical)) return {kind: 'outside', path: lexical}
  const real = await realpath(lexical).catch(() => undefined)
  if (real === undefined) return {kind: 'missing'}
  if (!isInside(await realpath(root), real)) return {kind: 'outside', path: real}
  const found = await stat(real).catch(() => undefined)
  return found?.isFile() ? {kind: 'file', path: real} : {kind: 'missing'}
}
