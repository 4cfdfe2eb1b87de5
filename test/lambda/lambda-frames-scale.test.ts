import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {planChunks} from '../../packages/lambda/src/lib/lambda/chunk-plan.js'
import {getRenderProgress, waitForRender} from '../../packages/lambda/src/lib/lambda/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {decodedFrameHashes, probeVideoStream} from '../support/media.js'
import {runCli, type CliResult} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')

describe('chunks of a --frames range', () => {
  it('are whole segments of the composition grid inside the range, the first and last possibly partial', () => {
    expect(planChunks({start: 20, end: 70}, 30, {chunkSize: 30}).chunks).toEqual([
      {start: 20, end: 30},
      {start: 30, end: 60},
      {start: 60, end: 70},
    ])
    expect(planChunks({start: 20, end: 70}, 10, {chunkSize: 20}).chunks).toEqual([
      {start: 20, end: 40},
      {start: 40, end: 60},
      {start: 60, end: 70},
    ])
    // targetChunkFrames counts the range's frames: 50 frames, target 25 -> 2 chunks of whole segments.
    expect(planChunks({start: 20, end: 70}, 10, {targetChunkFrames: 25}).chunks).toEqual([
      {start: 20, end: 50},
      {start: 50, end: 70},
    ])
    expect(planChunks({start: 5, end: 6}, 30).chunks).toEqual([{start: 5, end: 6}])
  })
})

describe('lambda render --frames and --scale on the local stack', () => {
  let stack: RunningStack
  let scratch: string
  let siteId: string
  const lambda = (args: string[]): Promise<CliResult> => runCli(['lambda', ...args], {env: stack.env})
  const wait = (render: string) =>
    waitForRender({render, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 300, signal: AbortSignal.timeout(180_000)})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-frames-'))])
    const site = await lambda(['sites', 'create', PROJECT])
    siteId = /^Site ID: (\w+)$/m.exec(site.stdout)![1]!
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('renders frames 20-69 in chunks planned inside the range: the local --frames file, byte for byte, and the full render\'s frames', async () => {
    // 1 s keyframe interval: segments of 30 frames, so the range is 20-29 | 30-59 | 60-69.
    const started = await lambda(['render', PROJECT, '--site-id', siteId, '--frames', '20-69', '--chunk-size', '30', '--keyframe-interval', '1', '--crf', '0', '--output-key', 'out/range.mp4', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const handle = JSON.parse(started.stdout) as {renderId: string}
    const done = await wait(handle.renderId)
    expect(done.error).toBeUndefined()
    expect(done).toMatchObject({status: 'SUCCEEDED', chunks: {done: 3, total: 3}, frames: {done: 50, total: 50}})

    const chunked = join(scratch, 'range.mp4')
    await stack.bucket.downloadFile('out/range.mp4', chunked)
    const options = {crf: 0, keyframeInterval: 1, workers: 1, profile: 'deterministic' as const}
    const local = await renderComposition({composition: join(PROJECT, 'index.html'), options: resolveRenderOptions({...options, frames: '20-69', output: join(scratch, 'local-range.mp4')})})
    expect(await readFile(chunked)).toEqual(await readFile(local.output))
    const full = await renderComposition({composition: join(PROJECT, 'index.html'), options: resolveRenderOptions({...options, output: join(scratch, 'full.mp4')})})
    // Lossless: every frame of the range is the full render's frame, not only the shared segments'.
    expect(await decodedFrameHashes(chunked)).toEqual((await decodedFrameHashes(full.output)).slice(20, 70))
  }, 240_000)

  it('a range past the end fails in the plan step, naming --frames and the last frame; a malformed one is refused before anything starts', async () => {
    const started = await lambda(['render', PROJECT, '--site-id', siteId, '--frames', '80-95', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const {renderId} = JSON.parse(started.stdout) as {renderId: string}
    const done = await wait(renderId)
    expect(done.status).toBe('FAILED')
    expect(done.error?.message).toMatch(/--frames 80-95: frame 95 is past the end; the composition has 90 frames \(0-89/)
    const progress = await getRenderProgress({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN})
    expect(progress.status).toBe('FAILED')

    const malformed = await lambda(['render', PROJECT, '--site-id', siteId, '--frames', '9-3'])
    expect(malformed.code).toBe(1)
    expect(malformed.stderr).toContain('[validateConfig] config.frames: frame 9 comes after frame 3; write the lower frame first: 3-9')
  }, 240_000)

  it('--scale 2 renders at twice the size, drawn at that density: the local --scale file, byte for byte', async () => {
    const started = await lambda(['render', PROJECT, '--site-id', siteId, '--scale', '2', '--frames', '25-34', '--chunk-size', '30', '--keyframe-interval', '1', '--output-key', 'out/scaled.mp4', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const done = await wait((JSON.parse(started.stdout) as {renderId: string}).renderId)
    expect(done.error).toBeUndefined()
    expect(done).toMatchObject({status: 'SUCCEEDED', chunks: {total: 2}, frames: {done: 10, total: 10}})
    const chunked = join(scratch, 'scaled.mp4')
    await stack.bucket.downloadFile('out/scaled.mp4', chunked)
    expect(await probeVideoStream(chunked)).toMatchObject({width: 640, height: 360, nb_read_frames: '10'})
    const local = await renderComposition({
      composition: join(PROJECT, 'index.html'),
      options: resolveRenderOptions({scale: 2, frames: '25-34', keyframeInterval: 1, workers: 1, profile: 'deterministic', output: join(scratch, 'local-scaled.mp4')}),
    })
    expect(await readFile(chunked)).toEqual(await readFile(local.output))

    const refused = await lambda(['render', PROJECT, '--site-id', siteId, '--scale', '40'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('[validateConfig] config.scale:')
  }, 240_000)
})
