import {join} from 'node:path'
import {engineAssetDirectory} from '../sandbox/page-origin.js'

/**
 * `<cache>/media/<kind>`: downloaded sources and extracted frames, both content-addressed. The
 * frames are served to the page from there as engine assets (framesDirectoryUrl).
 */
export function mediaCacheDir(kind: 'downloads' | 'frames', env: NodeJS.ProcessEnv = process.env): string {
  return join(engineAssetDirectory('media', env), kind)
}
