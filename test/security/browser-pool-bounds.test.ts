import {readdirSync, readFileSync} from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {testBrowser} from '../runtime/support/test-browser.js'
import {until} from '../support/until.js'
import {spawnServe, type ServeProcess} from '../server/support/spawn-serve.js'
import {rawRequest} from './support/raw-http.js'
import {compositionHtml, makeServeRoot, type ServeRoot} from './support/serve-root.js'
import {PROCESSES} from '../support/timeouts.js'

/** Browser processes started by `pid` itself (each launch is one, whatever helpers it forks). */
function browserChildren(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [, name, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat)!
      if (Number(rest.split(' ')[1]) === pid && /chrom|headless/i.test(name)) children.push(Number(entry))
    } catch {
      // The process ended while it was read.
    }
  }
  return children
}

describe('BrowserPool bounds its idle processes', PROCESSES, () => {
  it('keeps at most maxIdle, ending the least recently used first, and ends one left idle past the timeout', async () => {
    const pool = new BrowserPool({maxIdle: 2, idleTimeoutMs: 1_500})
    try {
      const kinds = [1, 2, 3].map((scale) => ({...testBrowser(), deviceScaleFactor: scale}))
      const leases = await Promise.all(kinds.map((kind) => pool.acquire(kind)))
      for (const lease of leases) await lease.release(true)
      expect(pool.idleCount).toBe(2)
      // The first released (least recently used) was ended; the other two are warm.
      expect(leases[0].browser.connected).toBe(false)
      const again = await pool.acquire(kinds[2])
      expect(again.browser).toBe(leases[2].browser)
      await again.release(true)
      expect(await until(() => pool.size === 0 && leases.every((lease) => !lease.browser.connected), 10_000)).toBe(true)
    } finally {
      await pool.close()
    }
  })

  it('screenshot-capture processes of any scale are one kind (the page sets its own factor); begin-frame ones are not', async () => {
    const pool = new BrowserPool()
    try {
      const screenshot = {...testBrowser(), beginFrame: false}
      const first = await pool.acquire({...screenshot, deviceScaleFactor: 2})
      await first.release(true)
      const second = await pool.acquire({...screenshot, deviceScaleFactor: 0.25})
      expect(second.browser).toBe(first.browser)
      await second.release(true)
      const beginFrame = await pool.acquire({...testBrowser(), deviceScaleFactor: 2})
      expect(beginFrame.browser).not.toBe(first.browser)
      await beginFrame.release(true)
      // A begin-frame process draws at its launch scale only: another scale is another process,
      // the same scale takes the idle one back.
      const otherScale = await pool.acquire({...testBrowser(), deviceScaleFactor: 1})
      expect(otherScale.browser).not.toBe(beginFrame.browser)
      await otherScale.release(true)
      const sameScale = await pool.acquire({...testBrowser(), deviceScaleFactor: 2})
      expect(sameScale.browser).toBe(beginFrame.browser)
      await sameScale.release(true)
    } finally {
      await pool.close()
    }
  })
})

describe('engine serve does not keep a browser per scale for ever', PROCESSES, () => {
  let serve: ServeProcess
  let root: ServeRoot

  beforeAll(async () => {
    root = await makeServeRoot({'small.html': compositionHtml(160, 90, 1)})
    serve = await spawnServe(['--root', root.root, '--output-dir', root.outputs, '--max-concurrent-renders', '1', '--max-workers', '1'])
  }, 60_000)

  afterAll(async () => {
    await serve?.stop()
    await root?.remove()
  })

  it('six stills at six scales leave at most one idle browser (1 render x 1 worker)', async () => {
    for (const scale of [1, 1.5, 2, 2.5, 3, 0.5]) {
      const response = await rawRequest(`${serve.url}/still`, {
        method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({composition: 'small.html', scale, frame: 0}),
      })
      expect(response.status, `scale ${scale}: ${response.body}`).toBe(200)
    }
    expect(await until(() => browserChildren(serve.child.pid!).length <= 1, 10_000)).toBe(true)
  })
})
