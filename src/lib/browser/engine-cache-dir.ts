import {homedir} from 'node:os'
import {join} from 'node:path'

/** Root of engine's download cache: `ENGINE_CACHE_DIR`, else `~/.cache/engine`. */
export function engineCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.ENGINE_CACHE_DIR || join(homedir(), '.cache', 'engine')
}

/** Where `engine browser install` puts browsers: `<cache>/browsers`. */
export function browserCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(engineCacheDir(env), 'browsers')
}
