import {ENGINE_ASSET_PREFIX, PAGE_ORIGIN, type EngineAssetKind} from './page-origin.js'

/** Where the answer to one of the page's requests comes from. */
export type RequestRoute =
  | {kind: 'document'}
  | {kind: 'project'; urlPath: string}
  | {kind: 'asset'; assetKind: EngineAssetKind; relativePath: string}
  | {kind: 'remote'; url: string}
  /** Answered by the browser itself (`data:`, `blob:`). */
  | {kind: 'browser'}
  | {kind: 'blocked'; reason: string}

const ASSET_KINDS: readonly EngineAssetKind[] = ['media', 'fonts']

/**
 * Decides a request by its URL alone: the compiled document, a file of the project or of the
 * engine (both on the private page origin), a remote http(s) URL (whose address the fetch checks),
 * or something no composition may load (`file:` and every other scheme).
 */
export function routeRequest(url: string, documentUrl: string): RequestRoute {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return {kind: 'blocked', reason: 'it is not a valid URL'}
  }
  if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') return {kind: 'browser'}
  if (parsed.origin === PAGE_ORIGIN) {
    if (parsed.pathname === new URL(documentUrl).pathname) return {kind: 'document'}
    const path = decodePath(parsed.pathname)
    if (path === undefined) return {kind: 'blocked', reason: 'its path is not valid percent-encoding'}
    if (path.startsWith(ENGINE_ASSET_PREFIX)) {
      const [assetKind, ...rest] = path.slice(ENGINE_ASSET_PREFIX.length).split('/')
      if (!ASSET_KINDS.includes(assetKind as EngineAssetKind)) return {kind: 'blocked', reason: `the engine provides no "${assetKind}" files`}
      return {kind: 'asset', assetKind: assetKind as EngineAssetKind, relativePath: rest.join('/')}
    }
    return {kind: 'project', urlPath: path}
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return {kind: 'remote', url: parsed.href}
  return {kind: 'blocked', reason: `a composition may not load ${parsed.protocol} URLs`}
}

function decodePath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname)
  } catch {
    return undefined
  }
}
