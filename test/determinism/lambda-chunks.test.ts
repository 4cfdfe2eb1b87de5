import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout} from 'node:timers/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {waitForRender} from '../../packages/lambda/src/lib/lambda/index.js'
import {decodedFrameHashes} from '../support/media.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, type RunningStack} from '../lambda/support.js'
import {sharedStack} from '../support/shared-stack.js'
import {sha256File} from './support.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')

// The project: 90 frames at 30 fps, colour bands and a moving box. A 0.5 s keyframe interval
// makes 15-frame segments; --chunk-size 40 rounds up to 3 whole segments, so 2 chunks of 45 frames
// whose seam falls inside no segment, and local workers share 6 segments another way.
describe('a distributed render writes the same file as a local one (default quality)', () => {
  let stack: RunningStack
  let scratch: string

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-determinism-'))])
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  /** `engine render` with 1 worker, as a user runs it, and the library with 2 (the same options); their paths. */
  async function renderLocally(): Promise<string[]> {
    const [one, two] = [join(scratch, 'local-1.mp4'), join(scratch, 'local-2.mp4')]
    const result = await runCli(['render', join(PROJECT, 'index.html'), '--quiet', '--workers', '1', '--keyframe-interval', '0.5', '-o', one])
    expect(result.code, result.stderr).toBe(0)
    await renderComposition({composition: join(PROJECT, 'index.html'), options: resolveRenderOptions({workers: 2, keyframeInterval: 0.5, output: two})})
    return [one, two]
  }

  it('mp4 through `engine lambda local` in 2 chunks has the sha256 of local renders with 1 and 2 workers', async () => {
    const started = await runCli(['lambda', 'render', PROJECT, '--keyframe-interval', '0.5', '--chunk-size', '40', '--output-key', 'out/grid.mp4'], {env: stack.env})
    expect(started.code, started.stderr).toBe(0)
    const renderId = /^renderId: (\S+)$/m.exec(started.stdout)![1]
    // The local renders run while the stack renders: most of its time is spent waiting on its steps.
    const locals = renderLocally()
    locals.catch(() => {})
    // Wait for the output object before polling progress: while chunks run, a progress read can catch
    // a chunk's progress record mid-rewrite on the local S3 server (a known gap, see atomic-object-writes.ts).
    const deadline = Date.now() + 240_000
    while (!(await stack.bucket.exists('out/grid.mp4')) && Date.now() < deadline) await setTimeout(500)
    const done = await waitForRender({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 300, signal: AbortSignal.timeout(60_000)})
    expect(done.error).toBeUndefined()
    expect(done).toMatchObject({status: 'SUCCEEDED', chunks: {done: 2, total: 2}, frames: {done: 90, total: 90}})
    const chunked = join(scratch, 'chunked.mp4')
    await stack.bucket.downloadFile('out/grid.mp4', chunked)

    for (const [workers, local] of (await locals).entries()) {
      expect(await sha256File(chunked), `local render with ${workers + 1} workers`).toBe(await sha256File(local))
    }
    const frames = await decodedFrameHashes(chunked)
    expect(frames).toHaveLength(90)
    expect(await decodedFrameHashes(join(scratch, 'local-1.mp4'))).toEqual(frames)
  }, 360_000)
})
