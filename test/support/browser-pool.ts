import {afterAll} from 'vitest'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'

/**
 * Call at describe level: warm browser processes that the file's in-process renders share, as a
 * batch's rows or a server's renders do, ended after the file's tests. Each render that brings no
 * pool launches and ends a browser of its own: a second of CPU and of waiting every time.
 */
export function useBrowserPool(): BrowserPool {
  const pool = new BrowserPool()
  afterAll(() => pool.close())
  return pool
}
