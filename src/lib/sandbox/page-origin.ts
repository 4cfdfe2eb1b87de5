import {join} from 'node:path'
import {engineCacheDir} from '../browser/engine-cache-dir.js'

/**
 * The private origin every composition is loaded from. Nothing listens there: the browser's
 * requests to it are answered by the engine (DevTools Fetch interception), so the same URLs work
 * locally, in a container and on Lambda, and no other software on the machine can reach them.
 * A `.localhost` name is a secure context even over http (so APIs that need one work), and an
 * http page may still show the http images a template names, which an https one would block as
 * mixed content.
 */
export const PAGE_ORIGIN = 'http://project.engine.localhost'

/** Path prefix of the files the engine itself provides to the page (runtime, media, fonts). */
export const ENGINE_ASSET_PREFIX = '/__engine/'

/** Kinds of engine-provided files; each is served from one directory (engineAssetDirectory). */
export type EngineAssetKind = 'media' | 'fonts'

/** URL of an engine-provided file, e.g. `engineAssetUrl('fonts', 'ab12….woff2')`. */
export function engineAssetUrl(kind: EngineAssetKind, relativePath: string): string {
  const encoded = relativePath.split('/').map(encodeURIComponent).join('/')
  return `${PAGE_ORIGIN}${ENGINE_ASSET_PREFIX}${kind}/${encoded}`
}

/** Directory behind `engineAssetUrl(kind, …)`: `<cache>/media` and `<cache>/fonts`. */
export function engineAssetDirectory(kind: EngineAssetKind, env: NodeJS.ProcessEnv = process.env): string {
  return join(engineCacheDir(env), kind)
}
