import {existsSync} from 'node:fs'
import {homedir} from 'node:os'
import {isAbsolute, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {EngineError} from '../lib/errors/engine-error.js'

const INSTALL = new Set(['install', 'add', 'i'])

/**
 * `engine plugins install` with a local directory or tarball: @oclif/plugin-plugins reads any
 * argument with a slash as a GitHub repository (`/abs/x.tgz` became https://github.com//abs/x.tgz
 * and failed after a minute of git), so such an argument is rewritten to the `file:` spec npm
 * installs from. An argument is a path when it starts like one (`/`, `./`, `../`, `~/`) or names a
 * tarball, as npm reads it; anything else (npm names, GitHub URLs and slugs) is left alone.
 */
export function pluginInstallArgs(argv: readonly string[], cwd = process.cwd()): string[] {
  const [topic, command, ...rest] = argv
  if (topic !== 'plugins' || !INSTALL.has(command ?? '')) return [...argv]
  let afterDashes = false
  const mapped = rest.map((arg) => {
    if (arg === '--') afterDashes = true
    if (!afterDashes && arg.startsWith('-')) return arg
    if (!isLocalPath(arg)) return arg
    const path = localPath(arg, cwd)
    if (!existsSync(path)) {
      throw new EngineError('INVALID_FLAG', `plugins install: ${arg} does not exist; give the path of a plugin's directory or of its npm pack tarball, or an npm package name`, {argument: arg, path})
    }
    return `file:${pathToFileURL(path).pathname}`
  })
  return [topic, command, ...mapped]
}

function localPath(arg: string, cwd: string): string {
  if (arg === '~' || arg.startsWith('~/')) return resolve(homedir(), arg.slice(2))
  return isAbsolute(arg) ? arg : resolve(cwd, arg)
}

function isLocalPath(arg: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(arg)) return false
  return /^(\/|\.{1,2}\/|~\/|~$)/.test(arg) || /\.(tgz|tar\.gz|tar)$/i.test(arg)
}
