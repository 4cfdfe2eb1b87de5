import {cp, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {getBatchProgress, getRenderProgress, waitForRender, type BatchEntry, type RenderProgress} from '../../packages/lambda/src/lib/lambda/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {decodedFrameHashes, near, pixelAt, probeVideoStream} from '../support/media.js'
import {runCli, type CliResult} from '../support/run-cli.js'
import {until} from '../support/until.js'
import {startReceiver} from '../notify/receiver.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')
const TINY = join(LAMBDA_FIXTURES, 'tiny')

describe('serverless stack through `engine lambda local`', () => {
  let stack: RunningStack
  let scratch: string
  const lambda = (args: string[]): Promise<CliResult> => runCli(['lambda', ...args], {env: stack.env})
  const progressOf = (render: string) => getRenderProgress({render, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-scratch-'))])
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('sites create: the same files give the same Site ID and nothing is uploaded again; a change gives a new one', async () => {
    const copy = join(scratch, 'site')
    await cp(PROJECT, copy, {recursive: true})
    const first = await lambda(['sites', 'create', copy])
    expect(first.code, first.stderr).toBe(0)
    const siteId = /^Site ID: ([0-9a-f]{24})$/m.exec(first.stdout)![1]
    // The project's two files, and the font packages its composition uses (the function has none).
    const fonts = await stack.bucket.listKeys(`sites/${siteId}/.engine/fonts/`)
    expect(fonts).toEqual(expect.arrayContaining([`sites/${siteId}/.engine/fonts/noto-serif/metadata.json`]))
    expect(first.stderr).toContain(`uploaded ${2 + fonts.length} files`)
    expect(await stack.bucket.exists(`sites/${siteId}/style.css`)).toBe(true)

    const again = await lambda(['sites', 'create', copy])
    expect(again.stdout.trim()).toBe(`Site ID: ${siteId}`)
    expect(again.stderr).toMatch(/nothing uploaded/)

    await writeFile(join(copy, 'style.css'), '#box { background: black; }\n', {flag: 'a'})
    const changed = await lambda(['sites', 'create', copy])
    expect(changed.stdout).not.toContain(siteId)
    expect(changed.stderr).toContain(`uploaded ${2 + fonts.length} files`)
  })

  it('a 90-frame render in 3 chunks decodes to the same frames as a local render, with the right colours at every seam', async () => {
    const site = await lambda(['sites', 'create', PROJECT])
    const siteId = /^Site ID: (\w+)$/m.exec(site.stdout)![1]
    // --site-id: a minimal handle from the id; the project directory is not even read.
    // A 1 s keyframe interval puts grid segments (and so chunks of 30 frames) on the colour changes.
    const started = await lambda(['render', join(scratch, 'not-there'), '--site-id', siteId, '--chunk-size', '30', '--keyframe-interval', '1', '--crf', '0', '--output-key', 'out/seams.mp4'])
    expect(started.code, started.stderr).toBe(0)
    const handle = {renderId: /^renderId: (\S+)$/m.exec(started.stdout)![1], executionArn: /^executionArn: (\S+)$/m.exec(started.stdout)![1]}
    expect(handle.executionArn).toBe(`${stack.env.ENGINE_SFN_ARN.replace(':stateMachine:', ':execution:')}:${handle.renderId}`)

    // Progress, polled to completion by renderId.
    const seen: RenderProgress[] = []
    const done = await waitForRender({render: handle.renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 100, onProgress: (p) => seen.push(p), signal: AbortSignal.timeout(180_000)})
    expect(done.error).toBeUndefined()
    expect(done).toMatchObject({status: 'SUCCEEDED', stage: 'done', chunks: {done: 3, total: 3}, frames: {done: 90, total: 90}})
    expect(seen.some((p) => p.status === 'RUNNING')).toBe(true)
    // Running chunks report their frames: some poll counted frames beyond those of finished chunks.
    expect(seen.some((p) => p.status === 'RUNNING' && p.frames.done > 30 * p.chunks.done)).toBe(true)
    expect(seen.every((p, i) => i === 0 || p.frames.done >= seen[i - 1]!.frames.done)).toBe(true)
    expect(done.cost.stateTransitions).toBe(7)
    expect(done.cost.usd).toBeGreaterThan(0)

    const chunked = join(scratch, 'chunked.mp4')
    await stack.bucket.downloadFile('out/seams.mp4', chunked)
    const local = await renderComposition({
      composition: join(PROJECT, 'index.html'),
      options: resolveRenderOptions({crf: 0, keyframeInterval: 1, workers: 1, profile: 'deterministic', output: join(scratch, 'local.mp4')}),
    })
    const [chunkedFrames, localFrames] = await Promise.all([decodedFrameHashes(chunked), decodedFrameHashes(local.output)])
    expect(chunkedFrames).toHaveLength(90)
    expect(chunkedFrames).toEqual(localFrames)
    expect(await readFile(chunked)).toEqual(await readFile(local.output))

    // Seams at frames 30 and 60 coincide with the colour changes: each side keeps its own colour.
    const band = (frame: number) => pixelAt(chunked, frame, 160, 70)
    expect(near(await band(0), {r: 255, g: 0, b: 0})).toBe(true)
    expect(near(await band(29), {r: 255, g: 0, b: 0})).toBe(true)
    expect(near(await band(30), {r: 0, g: 255, b: 0})).toBe(true)
    expect(near(await band(59), {r: 0, g: 255, b: 0})).toBe(true)
    expect(near(await band(60), {r: 0, g: 0, b: 255})).toBe(true)
    expect(near(await band(89), {r: 0, g: 0, b: 255})).toBe(true)
    // The moving box is where a single render puts it on both sides of each seam (x = 290 * t / 3).
    for (const frame of [29, 30, 59, 60]) {
      const x = Math.round((290 * frame) / 90) + 15
      expect(near(await pixelAt(chunked, frame, x, 165), {r: 255, g: 255, b: 255}), `box at frame ${frame}`).toBe(true)
    }

    const text = await lambda(['progress', handle.executionArn])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/SUCCEEDED \(done\)/)
    expect(text.stdout).toMatch(/Chunks: 3\/3 done; frames 90\/90/)
    expect(text.stdout).toContain(`s3://${stack.env.ENGINE_BUCKET}/out/seams.mp4`)
    expect(text.stdout).toMatch(/Estimated cost: \$0\.\d+/)
  })

  it('render-batch: one render per line queued in the cloud, a failing line reported without affecting the others, --dry-run starts nothing', async () => {
    const batch = join(scratch, 'rows.jsonl')
    await writeFile(
      batch,
      [
        JSON.stringify({outputKey: 'batch/yellow.mp4', variables: {fill: '#ffff00'}}),
        JSON.stringify({outputKey: 'batch/huge.mp4', variables: {fill: '#' + 'f'.repeat(300_000)}}),
        '{"outputKey": "batch/broken.mp4", ',
        '',
        JSON.stringify({outputKey: 'batch/cyan.mp4', variables: {fill: '#00ffff'}}),
      ].join('\n'),
    )
    const dry = await lambda(['render-batch', TINY, '--batch', batch, '--dry-run', '--json'])
    // Lines that would fail make the dry run fail too, so a script can check a batch first.
    expect(dry.code, dry.stderr).toBe(1)
    const dryEntries = JSON.parse(dry.stdout) as BatchEntry[]
    expect(dryEntries.map((entry) => [entry.line, entry.status])).toEqual([
      [1, 'would-invoke'],
      [2, 'invalid'],
      [3, 'invalid'],
      [5, 'would-invoke'],
    ])
    expect(dryEntries[1].error!.message).toMatch(/^\[validateConfig\] config: the workflow execution input is \d+ bytes/)
    expect(dryEntries[2].error!.message).toMatch(/^line 3: not valid JSON/)
    expect(dryEntries.every((entry) => entry.executionArn === undefined)).toBe(true)

    const result = await lambda(['render-batch', TINY, '--batch', batch, '--json', '--max-concurrent', '2', '--width', '160', '--height', '90'])
    expect(result.code).toBe(1)
    const entries = JSON.parse(result.stdout) as BatchEntry[]
    expect(entries.map((entry) => [entry.line, entry.outputKey, entry.status])).toEqual([
      [1, 'batch/yellow.mp4', 'started'],
      [2, 'batch/huge.mp4', 'failed-to-start'],
      [3, undefined, 'failed-to-start'],
      [5, 'batch/cyan.mp4', 'started'],
    ])
    expect(entries[1].error!.message).toMatch(/^\[validateConfig\] config: the workflow execution input is \d+ bytes, over the limit of 262144 bytes/)
    expect(entries[2].error!.message).toMatch(/^line 3: not valid JSON/)
    const started = entries.filter((entry) => entry.status === 'started')
    for (const entry of started) expect(entry.executionArn).toMatch(/:execution:engine-render:\S+-r1-\d+$/)
    const batchId = /^batch (\S+) \(run 1\)/m.exec(result.stderr)![1]
    const ended = async () => (await getBatchProgress({batchId, bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT})).status !== 'RUNNING'
    expect(await until(ended, 180_000)).toBe(true)

    const finals = await Promise.all(started.map((entry) => progressOf(entry.executionArn!)))
    expect(finals.map((p) => [p.status, p.output.outputKey])).toEqual([
      ['SUCCEEDED', 'batch/yellow.mp4'],
      ['SUCCEEDED', 'batch/cyan.mp4'],
    ])
    const yellow = join(scratch, 'yellow.mp4')
    await stack.bucket.downloadFile('batch/yellow.mp4', yellow)
    expect(near(await pixelAt(yellow, 0, 80, 45), {r: 255, g: 255, b: 0})).toBe(true)
    // --width/--height set the page and output size.
    expect(await probeVideoStream(yellow)).toMatchObject({width: 160, height: 90})

    const text = await lambda(['render-batch', TINY, '--batch', batch, '--dry-run'])
    expect(text.stdout).toMatch(/^line 1 {2}batch\/yellow\.mp4 {2}would-invoke$/m)
    expect(text.stdout).toMatch(/^line 2 {2}batch\/huge\.mp4 {2}invalid {2}would fail: \[PAYLOAD_TOO_LARGE\] /m)
    expect(text.stdout.trim().split('\n').at(-1)).toBe('2 would-invoke, 2 invalid (dry run: nothing started)')
  })

  it('render-batch refuses --variables-file with a message saying why', async () => {
    const result = await lambda(['render-batch', TINY, '--batch', join(scratch, 'rows.jsonl'), '--variables-file', 'vars.json'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/--variables-file: render-batch takes variables only from the batch rows/)
  })

  it('a deterministic failure fails the render once, without retries; --wait reports it and exits non-zero', async () => {
    const result = await lambda(['render', join(LAMBDA_FIXTURES, 'broken'), '--wait'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[COMPOSITION_INVALID\]: render \S+ FAILED: .*data-duration/)
    expect(result.stdout).toMatch(/FAILED \(failed\)/)
    const executionArn = /^executionArn: (\S+)$/m.exec(result.stderr)![1]
    const final = await progressOf(executionArn)
    expect(final.status).toBe('FAILED')
    expect(final.error?.code).toBe('COMPOSITION_INVALID')
    // Plan ran once, no retry; then the failure path: NotifyFailure and the Fail state.
    expect(final.cost.stateTransitions).toBe(3)
  })

  it('--webhook: assemble calls it once the output is stored (retrying a 500 with the same delivery id); a failed render calls it from the failure path', async () => {
    const receiver = await startReceiver('lambda-hook-secret', [500])
    try {
      const hooked = await runCli(['lambda', 'render', TINY, '--wait', '--webhook', receiver.url, '--output-key', 'out/hooked.mp4'], {
        env: {...stack.env, ENGINE_WEBHOOK_SECRET: 'lambda-hook-secret'},
      })
      expect(hooked.code, hooked.stderr).toBe(0)
      const renderId = /^renderId: (\S+)$/m.exec(hooked.stderr)![1]
      expect(receiver.calls.map((call) => [call.type, call.answeredWith, call.signatureValid])).toEqual([
        ['render.completed', 500, true],
        ['render.completed', 200, true],
      ])
      expect(receiver.calls[0].deliveryId).toBe(receiver.calls[1].deliveryId)
      expect(receiver.calls[1].body).toMatchObject({id: renderId, status: 'completed', output: `s3://${stack.env.ENGINE_BUCKET}/out/hooked.mp4`, error: null})
      expect(await stack.bucket.exists('out/hooked.mp4')).toBe(true)
      expect(hooked.stdout).toMatch(/Webhook: render\.completed delivered to http:\/\/127\.0\.0\.1:\d+\/hooks\/render \(2 attempt\(s\)\)/)
      // The secret never enters the execution input (which the workflow's history shows).
      const progress = await progressOf(renderId)
      expect(progress.webhook).toMatchObject({type: 'render.completed', delivered: true, attempts: 2})
      expect(JSON.stringify(await stack.bucket.listKeys(`scratch/${renderId}/`))).not.toContain('webhook')

      const broken = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'broken'), '--wait', '--webhook', receiver.url, '--webhook-secret', 'lambda-hook-secret'], {env: stack.env})
      expect(broken.code).toBe(1)
      expect(broken.stderr).toMatch(/COMPOSITION_INVALID/)
      expect(receiver.calls[2]).toMatchObject({type: 'render.failed', signatureValid: true, body: {status: 'failed', output: null, error: {code: 'COMPOSITION_INVALID'}}})
    } finally {
      await receiver.close()
    }
  }, 180_000)
})
