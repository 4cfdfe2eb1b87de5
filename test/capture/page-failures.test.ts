import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker} from '../../src/lib/capture/index.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {pagePlan} from '../runtime/support/page-plan.js'
import {testBrowser} from '../runtime/support/test-browser.js'
import {PROCESSES} from '../support/timeouts.js'

const root = '<div id="root" data-composition-id="main" data-width="320" data-height="180" data-duration="2"></div>'
const page = (body: string) => `<!doctype html>\n<html>\n<body>\n${root}\n${body}\n</body>\n</html>\n`

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(EngineError)
  return error as EngineError
}

async function captureAll(html: string, options: {readyTimeoutMs?: number; signal?: AbortSignal} = {}): Promise<void> {
  // The slow servers here listen on loopback, which a page reaches only when private addresses are allowed.
  const worker = await openCaptureWorker(pagePlan(html, {network: {publicUrls: true, privateAddresses: true}}), {browser: testBrowser(), ...options})
  try {
    await worker.captureRange({start: 0, end: 60}, () => {})
  } finally {
    await worker.close()
  }
}

beforeAll(ensureRuntimeBundle)

describe('errors in the page fail the render with the page message', PROCESSES, () => {
  it('reports an exception thrown while the page loads, with its line', async () => {
    const error = await failure(captureAll(page('<script>\nvar missing = null;\nmissing.boom();\n</script>')))
    expect(error.code).toBe('PAGE_ERROR')
    expect(error.message).toMatch(/^TypeError: Cannot read properties of null \(reading 'boom'\) \(at index\.html:7\)$/)
  })

  it('reports an exception thrown by a timer during capture', async () => {
    const error = await failure(captureAll(page('<script>\nsetTimeout(function () {\n  throw new Error("late failure");\n}, 500);\n</script>')))
    expect(error.code).toBe('PAGE_ERROR')
    expect(error.message).toBe('late failure (at index.html:7)')
  })

  it('reports an unhandled promise rejection', async () => {
    const error = await failure(captureAll(page('<script>\nsetTimeout(function () { Promise.reject(new Error("nope")); }, 200);\n</script>')))
    expect(error.code).toBe('PAGE_ERROR')
    expect(error.message).toMatch(/^Unhandled promise rejection: nope \(at index\.html:6\)$/)
  })
})

describe('a page that never gets ready', PROCESSES, () => {
  let server: Server
  let hangingUrl: string

  beforeAll(async () => {
    // Accepts requests and never answers them.
    server = createServer(() => {})
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    hangingUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/never.png`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  it('times out naming what it waited for', async () => {
    const error = await failure(captureAll(page(`<img src="${hangingUrl}">`), {readyTimeoutMs: 1500}))
    expect(error.code).toBe('PAGE_TIMEOUT')
    expect(error.message).toContain('not ready after 1.5 s')
    expect(error.message).toContain('the page to load')
    expect(error.message).toContain(hangingUrl)
  })

  it('says when the main thread is stuck in a script', async () => {
    const error = await failure(captureAll(page('<script>setTimeout(function () { for (;;) {} }, 0);</script>'), {readyTimeoutMs: 1000}))
    expect(error.code).toBe('PAGE_TIMEOUT')
    expect(error.message).toContain('main thread is busy')
  })
})

describe('a page that stops returning images', PROCESSES, () => {
  it('is replaced by a fresh page that seeks straight to the frame, and the range completes with the same frames', async () => {
    const plan = pagePlan('motion.html', {durationSeconds: 1})
    const frames = async (pages: 1 | 2, breakAt?: number) => {
      const worker = await openCaptureWorker(plan, {browser: testBrowser(), pages})
      const images = new Map<number, Buffer>()
      try {
        await worker.captureRange({start: 0, end: 12}, (index, image) => {
          images.set(index, image)
          // The page a real failure leaves behind: every capture of it comes back empty.
          if (index === breakAt) {
            const page = (worker as unknown as {pages: {list: {capturer: {capture: () => Promise<Buffer>}}[]}}).pages.list[0]
            page.capturer.capture = () => Promise.reject(new EngineError('BROWSER_FAILED', 'the browser returned no image', {reason: 'no-image'}))
          }
        })
        return {images, stats: worker.stats}
      } finally {
        await worker.close()
      }
    }
    const reference = await frames(1)
    for (const pages of [1, 2] as const) {
      const recovered = await frames(pages, 5)
      expect(recovered.images.size).toBe(12)
      expect(recovered.stats.pages).toBe(pages)
      // A loaded machine can also stall a page for real (a hog run of 27 November reloaded two):
      // that reload is recovery working too, and the frames must still be the same.
      expect(recovered.stats.reloadedPages).toBeGreaterThanOrEqual(1)
      for (let frame = 0; frame < 12; frame++) expect(recovered.images.get(frame)!.equals(reference.images.get(frame)!), `${pages} page(s), frame ${frame}`).toBe(true)
    }
  })
})

describe('cancellation', PROCESSES, () => {
  it('stops a capture promptly with CANCELLED', async () => {
    const controller = new AbortController()
    const worker = await openCaptureWorker(pagePlan('motion.html', {durationSeconds: 1}), {browser: testBrowser(), signal: controller.signal})
    try {
      const capturing = worker.captureRange({start: 0, end: 30}, (index) => {
        if (index === 3) controller.abort()
      })
      const error = await failure(capturing)
      expect(error.code).toBe('CANCELLED')
    } finally {
      await worker.close()
    }
  })

  it('does not start when already cancelled', async () => {
    const controller = new AbortController()
    controller.abort(new EngineError('CANCELLED', 'stopped by the test'))
    const error = await failure(openCaptureWorker(pagePlan('motion.html'), {browser: testBrowser(), signal: controller.signal}))
    expect(error.message).toBe('stopped by the test')
  })
})
