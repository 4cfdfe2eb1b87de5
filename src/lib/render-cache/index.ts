export {cleanEntries, listEntries, type ListedEntry} from './cache-entries.js'
export {RenderCache, renderCacheFor, type AcceptEntry, type CacheClaim, type CacheLookup, type CacheTarget} from './render-cache.js'
export {DEFAULT_RENDER_CACHE_BYTES, RENDER_CACHE_ENV, RENDER_CACHE_MAX_ENV, renderCacheSettings, type RenderCacheSettings} from './render-cache-settings.js'
