import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {ListExecutionsCommand, SFNClient} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {clientConfig} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {getBatchProgress, type BatchEntry, type BatchManifestFile, type BatchProgress} from '../../packages/lambda/src/lib/lambda/index.js'
import {near, pixelAt} from '../support/media.js'
import {runCli, type CliResult} from '../support/run-cli.js'
import {until} from '../support/until.js'
import {LAMBDA_FIXTURES, startStackCli, type RunningStack} from './support.js'

const ROWS = join(LAMBDA_FIXTURES, 'rows')
// Enough rows that the queue is full for most of the batch (8 turns of 2 functions) and the cancel
// (once a quarter has succeeded) leaves rows pending for the resume; each row is a render, so no more.
const COUNT = 16
const FAILING = [5, 13]

const color = (index: number) => `#${(index * 4).toString(16).padStart(2, '0')}c040`

describe('render-batch on the local stack: a queue run by the cloud', () => {
  let stack: RunningStack
  let scratch: string
  const lambda = (args: string[]): Promise<CliResult> => runCli(['lambda', ...args], {env: stack.env, timeoutMs: 60_000})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([startStackCli(['--concurrency', '2']), mkdtemp(join(tmpdir(), 'engine-batch-queue-'))])
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it(`${COUNT} rows with --max-concurrent 2 on a 2-function account: never more than 2 renders at once, none throttled out, the batch runs without its client; cancel, progress and --resume <id>`, {timeout: 420_000}, async () => {
    const lines = ['fill,fail', ...Array.from({length: COUNT}, (_, index) => `${color(index)},${FAILING.includes(index) ? 'yes' : ''}`)]
    await writeFile(join(scratch, 'rows.csv'), lines.join('\n') + '\n')
    const started = await lambda(['render-batch', ROWS, '--batch', join(scratch, 'rows.csv'), '--max-concurrent', '2', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const entries = JSON.parse(started.stdout) as BatchEntry[]
    expect(entries).toHaveLength(COUNT)
    expect(entries.every((entry) => entry.status === 'started')).toBe(true)
    const batchId = /^batch (\S+) \(run 1\) runs in the cloud/m.exec(started.stderr)![1]
    // The command has exited: from here on nothing of the client runs, and the batch goes on.

    const sfn = new SFNClient(clientConfig({endpoint: stack.env.ENGINE_AWS_ENDPOINT}))
    let mostAtOnce = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const running = await sfn.send(new ListExecutionsCommand({stateMachineArn: stack.env.ENGINE_SFN_ARN, statusFilter: 'RUNNING', maxResults: 1000}))
        mostAtOnce = Math.max(mostAtOnce, (running.executions ?? []).filter((execution) => execution.name?.startsWith(batchId)).length)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const progress = (): Promise<BatchProgress> => getBatchProgress({batchId, bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    try {
      expect(await until(async () => (await progress()).rows.succeeded >= COUNT / 4, 240_000, 500)).toBe(true)
      const cancelled = await lambda(['batch', 'cancel', batchId])
      expect(cancelled.code, cancelled.stderr).toBe(0)
      expect(cancelled.stdout).toMatch(new RegExp(`Cancelled batch ${batchId} \\(run 1\\): no further row starts`))
      // Rows running when the batch was cancelled are stopped with it: counted once they have ended.
      expect(await until(async () => (await progress()).rows.running === 0, 120_000, 500)).toBe(true)
      const stopped = await progress()
      expect(stopped.status).toBe('ABORTED')
      expect(stopped.rows.pending).toBeGreaterThan(0)
      expect(stopped.rows.succeeded).toBeLessThan(COUNT - FAILING.length)

      const resumed = await lambda(['render-batch', ROWS, '--resume', batchId])
      expect(resumed.code, resumed.stderr).toBe(0)
      expect(resumed.stderr).toContain(`batch ${batchId} (run 2) runs in the cloud`)
      const rerun = resumed.stdout.trim().split('\n').filter((line) => line.startsWith('line '))
      expect(rerun.length).toBe(COUNT - stopped.rows.succeeded)
      expect(rerun.every((line) => /started {2}\S+:execution:engine-render:\S+-r2-\d+$/.test(line))).toBe(true)
      expect(await until(async () => (await progress()).status !== 'RUNNING', 300_000, 500)).toBe(true)
    } finally {
      sampling = false
      await sampler
    }
    expect(mostAtOnce).toBeGreaterThan(0)
    expect(mostAtOnce).toBeLessThanOrEqual(2)

    const manifest = (await stack.bucket.getJson<BatchManifestFile>(`batches/${batchId}/manifest.json`))!
    // A row that should not fail says why in the first assertion that sees it.
    const failed = manifest.rows.filter((row) => row.status === 'failed')
    const why = JSON.stringify(failed.map((row) => ({index: row.index, error: row.error})))
    const text = await lambda(['batch', 'progress', batchId])
    expect(text.stdout, why).toMatch(new RegExp(`^batch ${batchId} run 2 SUCCEEDED: ${COUNT - FAILING.length}/${COUNT} rows succeeded · 2 failed · 0 running · 0 pending`))
    const final = JSON.parse((await lambda(['batch', 'progress', batchId, '--json'])).stdout) as BatchProgress
    expect(final.rows).toEqual({total: COUNT, pending: 0, running: 0, succeeded: COUNT - FAILING.length, failed: 2, rejected: 0, skipped: 0})
    expect(final.frames).toEqual({done: 6 * (COUNT - FAILING.length), total: 6 * COUNT})
    expect(final.cost!.usd).toBeGreaterThan(0)

    expect(manifest.run).toBe(2)
    expect(manifest.rows.map((row) => row.index)).toEqual(Array.from({length: COUNT}, (_, index) => index))
    expect(failed.map((row) => [row.index, row.error?.code])).toEqual(FAILING.map((index) => [index, 'PAGE_ERROR']))
    // Nothing failed for want of a free function: throttled chunks waited for one.
    expect(manifest.rows.some((row) => /TooManyRequests|Throttl/.test(JSON.stringify(row.error ?? '')))).toBe(false)
    for (const index of [0, 9, COUNT - 1]) {
      const row = manifest.rows[index]
      expect(row.status).toBe('succeeded')
      const file = join(scratch, `${index}.mp4`)
      await stack.bucket.downloadFile(row.outputKey, file)
      const [r, g, b] = [index * 4, 0xc0, 0x40]
      expect(near(await pixelAt(file, 0, 80, 45), {r, g, b}), `row ${index}`).toBe(true)
    }
  })
})
