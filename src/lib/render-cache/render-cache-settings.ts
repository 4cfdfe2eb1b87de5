import {join, resolve} from 'node:path'
import {engineCacheDir} from '../browser/engine-cache-dir.js'
import {parseSizeBudget} from '../sandbox/download-cache.js'

/** `off` turns the render cache off for every render of the environment; a path puts it there. */
export const RENDER_CACHE_ENV = 'ENGINE_RENDER_CACHE'
/** The most the render cache may hold, in bytes or with a unit (`10G`, `500M`). */
export const RENDER_CACHE_MAX_ENV = 'ENGINE_RENDER_CACHE_MAX'
export const DEFAULT_RENDER_CACHE_BYTES = 5 * 1024 ** 3

export interface RenderCacheSettings {
  directory: string
  budgetBytes: number
}

/** `<cache>/renders` (or ENGINE_RENDER_CACHE), and its budget; undefined when ENGINE_RENDER_CACHE is `off`. */
export function renderCacheSettings(env: NodeJS.ProcessEnv = process.env): RenderCacheSettings | undefined {
  const chosen = env[RENDER_CACHE_ENV]?.trim()
  if (chosen === 'off') return undefined
  return {
    directory: chosen ? resolve(chosen) : join(engineCacheDir(env), 'renders'),
    budgetBytes: parseSizeBudget(env, RENDER_CACHE_MAX_ENV, DEFAULT_RENDER_CACHE_BYTES),
  }
}
