import {subscribe, unsubscribe} from 'node:diagnostics_channel'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {TIMELINE_CHANNEL, type TimelineSpan} from '../../src/lib/trace/timeline.js'
import {descendantProcesses} from '../support/child-processes.js'
import {useScratchDir} from '../support/scratch-dir.js'

const CARD = join(import.meta.dirname, '..', 'batch', 'fixtures', 'card.html')

// A worker's first segment encoder starts while its page loads: a row of a batch no longer waits
// for ffmpeg to start after its page is ready.
describe('the first segment encoder starts while the page loads', () => {
  const scratch = useScratchDir('engine-encoder-ahead-')

  it('starts before the page is ready, and the render is unchanged', async () => {
    const spans: TimelineSpan[] = []
    const listen = (span: unknown) => spans.push(span as TimelineSpan)
    subscribe(TIMELINE_CHANNEL, listen)
    try {
      const result = await renderComposition({composition: CARD, variables: {title: 'Ahead'}, options: resolveRenderOptions({fps: 10, quality: 'draft', workers: 1, cache: false, output: join(scratch(), 'ahead.mp4')})})
      expect(result.totalFrames).toBe(5)
    } finally {
      unsubscribe(TIMELINE_CHANNEL, listen)
    }
    const started = spans.find((span) => span.stage === 'encoder-start' && span.segment === 0)!
    const loaded = spans.find((span) => span.stage === 'page-load')!
    expect(started.start).toBeLessThan(loaded.end)
  }, 60_000)

  it('ends that encoder when the page fails to load: no ffmpeg is left running', async () => {
    const render = renderComposition({composition: CARD, variables: {title: 'Boom', explode: true}, options: resolveRenderOptions({fps: 10, quality: 'draft', workers: 1, cache: false, output: join(scratch(), 'boom.mp4')})})
    await expect(render).rejects.toMatchObject({code: 'PAGE_ERROR'})
    expect(await descendantProcesses()).not.toContain('ffmpeg')
  }, 60_000)
})
