import {join} from 'node:path'
import {engineCacheDir} from '../browser/engine-cache-dir.js'

/** `<cache>/media/<kind>`: downloaded sources and extracted frames, both content-addressed. */
export function mediaCacheDir(kind: 'downloads' | 'frames', env: NodeJS.ProcessEnv = process.env): string {
  return join(engineCacheDir(env), 'media', kind)
}
