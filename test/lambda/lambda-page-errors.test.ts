import {copyFile, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {RenderProgress} from '../../packages/lambda/src/lib/lambda/render-progress.js'
import {probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'
import {FIXTURES} from '../render/support.js'
import type {RunningStack} from './support.js'
import {getBatchProgress} from '../../packages/lambda/src/lib/lambda/index.js'
import {batchManifestKey, type BatchManifestFile} from '../../packages/lambda/src/lib/lambda/batch/batch-records.js'
import {until} from '../support/until.js'

/** throwing.html (0.4 s): throws at load (line 6), and from a frame callback once past 0.2 s. */
describe('lambda render and still --page-errors', PROCESSES, () => {
  let stack: RunningStack
  let scratch: string
  let site: string
  const lambda = (args: string[]) => runCli(['lambda', ...args], {env: stack.env})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-page-errors-'))])
    site = join(scratch, 'site')
    await mkdir(site)
    await copyFile(join(FIXTURES, 'throwing.html'), join(site, 'index.html'))
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('warn: both chunks render every frame; the render reports each error once, with its script location', async () => {
    // Two chunks of 6 frames: each loads the page (and sees its load error); only the second passes 0.2 s.
    const rendered = await lambda(['render', site, '--page-errors', 'warn', '--keyframe-interval', '0.2', '--chunk-size', '6', '--quality', 'draft', '--output-key', 'out/warn.mp4', '--wait', '--json'])
    expect(rendered.code, rendered.stderr).toBe(0)
    const progress = JSON.parse(rendered.stdout.trim().split('\n').at(-1)!) as RenderProgress & {type: string}
    expect(progress).toMatchObject({status: 'SUCCEEDED', chunks: {done: 2, total: 2}})
    expect(progress.warnings.filter((warning) => warning.code === 'page-error')).toEqual([
      expect.objectContaining({message: expect.stringMatching(/reading 'start'.*\(at index\.html:6\)/), detail: expect.objectContaining({file: 'index.html', line: 6})}),
      expect.objectContaining({message: expect.stringMatching(/late decoration failed/)}),
    ])
    await stack.bucket.downloadFile('out/warn.mp4', join(scratch, 'warn.mp4'))
    expect(await probeVideoStream(join(scratch, 'warn.mp4'))).toMatchObject({nb_read_frames: '12'})
  })

  it('render-batch --cache: two identical rows whose page threw both render and report the error (no cached copy without it)', async () => {
    const rows = join(scratch, 'rows.jsonl')
    await writeFile(rows, '{"outputKey": "pe/1.mp4"}\n{"outputKey": "pe/2.mp4"}\n')
    const started = await lambda(['render-batch', site, '--batch', rows, '--page-errors', 'warn', '--cache', '--fps', '10', '--quality', 'draft', '--max-concurrent', '1'])
    const batchId = /^batch (\S+) \(run 1\)/m.exec(started.stderr)?.[1]
    expect(batchId, started.stderr).toBeDefined()
    const progress = () => getBatchProgress({batchId: batchId!, bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    expect(await until(async () => (await progress()).status !== 'RUNNING', 170_000, 500)).toBe(true)
    const manifest = (await stack.bucket.getJson<BatchManifestFile>(batchManifestKey(batchId!)))!
    expect(manifest.rows.map((row) => row.status), JSON.stringify(manifest.rows.map((row) => row.error))).toEqual(['succeeded', 'succeeded'])
    for (const row of manifest.rows) expect(row.warnings?.filter((warning) => warning.code === 'page-error')).toHaveLength(2)
  })

  it('still: fails by default; with --page-errors warn stores the image and prints the warning', async () => {
    const failed = await lambda(['still', site, '--output-key', 'thumbs/fail.png'])
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/PAGE_ERROR.*reading 'start'/)
    expect(await stack.bucket.exists('thumbs/fail.png')).toBe(false)

    const warned = await lambda(['still', site, '--page-errors', 'warn', '--output-key', 'thumbs/warn.png', '--json'])
    expect(warned.code, warned.stderr).toBe(0)
    const lines = warned.stdout.trim().split('\n').map((line) => JSON.parse(line) as {type: string; code?: string; message?: string})
    expect(lines.filter((line) => line.type === 'warning' && line.code === 'page-error')).toEqual([expect.objectContaining({message: expect.stringMatching(/\(at index\.html:6\)/)})])
    expect(await stack.bucket.exists('thumbs/warn.png')).toBe(true)
  })
})
