import {createHash} from 'node:crypto'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PutObjectCommand} from '@aws-sdk/client-s3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {getBatchProgress} from '../../packages/lambda/src/lib/lambda/index.js'
import {batchManifestKey, batchResultsKey, type BatchManifestFile} from '../../packages/lambda/src/lib/lambda/batch/batch-records.js'
import {startReceiver, type Receiver} from '../notify/receiver.js'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {runCli, type CliResult} from '../support/run-cli.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'
import {until} from '../support/until.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'

const CAMPAIGN = join(LAMBDA_FIXTURES, 'campaign')
const SECRET = 'campaign-hook-secret'
const LONG = 'Maximiliana Wolfeschlegelsteinhausen'
// customer_id and note are row data (no variable declares them); note is a cell a spreadsheet would run.
const ROWS = ['name,customer_id,note,outputKey', 'Ada,c-1,=1+2,', `${LONG},c-2,plain,`, 'Bo,c-3,x,../up.mp4', ''].join('\n')

describe('a serverless campaign: webhooks with row data, the result sheet and the check pass', PROCESSES, () => {
  let stack: RunningStack
  let scratch: string
  let receiver: Receiver
  const lambda = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(['lambda', ...args], {env: {...stack.env, ...env}})

  /** Starts a batch of ROWS on the campaign fixture and waits for its run to end; its manifest and sheet. */
  async function batch(name: string, flags: string[]): Promise<{started: CliResult; batchId: string; manifest: BatchManifestFile; sheet: string}> {
    const rows = join(scratch, `${name}.csv`)
    await writeFile(rows, ROWS)
    const started = await lambda(['render-batch', CAMPAIGN, '--batch', rows, '--output-key', `${name}/{customer_id}.mp4`, '--fps', '10', '--json', ...flags], {ENGINE_WEBHOOK_SECRET: SECRET})
    const batchId = /^batch (\S+) \(run 1\)/m.exec(started.stderr)?.[1]
    if (!batchId) throw new Error(`no batch started (exit ${started.code}): ${started.stderr} ${started.stdout}`)
    const progress = () => getBatchProgress({batchId, bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    expect(await until(async () => (await progress()).status !== 'RUNNING', 170_000, 500)).toBe(true)
    const manifest = (await stack.bucket.getJson<BatchManifestFile>(batchManifestKey(batchId)))!
    const sheetPath = join(scratch, `${name}-results.csv`)
    await stack.bucket.downloadFile(batchResultsKey(batchId), sheetPath)
    return {started, batchId, manifest, sheet: await readFile(sheetPath, 'utf8')}
  }

  beforeAll(async () => {
    ;[stack, scratch, receiver] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-campaign-')), startReceiver(SECRET)])
  })
  afterAll(async () => {
    await receiver?.close()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('--webhook: one signed call per row with row {index, data} and --webhook-data, then batch.completed; the manifest carries row data and the check pass warnings; results.csv joins every line', async () => {
    const {started, batchId, manifest, sheet} = await batch('hooked', ['--webhook', receiver.url, '--webhook-data', '{"campaign":"spring"}'])
    // The bad line fails to start; the two others render.
    expect(started.code).toBe(1)
    const calls = await receiver.waitForCalls(3)
    expect(calls.every((call) => call.signatureValid)).toBe(true)
    const rowCalls = calls.filter((call) => call.type === 'render.completed').sort((a, b) => (a.body.row as {index: number}).index - (b.body.row as {index: number}).index)
    expect(rowCalls.map((call) => call.body)).toEqual([
      expect.objectContaining({id: `${batchId}-r1-0`, status: 'completed', output: `s3://${stack.env.ENGINE_BUCKET}/hooked/c-1.mp4`, row: {index: 0, data: {customer_id: 'c-1', note: '=1+2'}}, data: {campaign: 'spring'}}),
      expect.objectContaining({id: `${batchId}-r1-1`, status: 'completed', row: {index: 1, data: {customer_id: 'c-2', note: 'plain'}}, data: {campaign: 'spring'}}),
    ])
    const last = calls.find((call) => call.type === 'batch.completed')!
    expect(last.body).toMatchObject({id: batchId, output: `s3://${stack.env.ENGINE_BUCKET}/${batchManifestKey(batchId)}`, data: {campaign: 'spring'}, counts: {succeeded: 2, failed: 0, rejected: 1}})

    expect(manifest.counts).toEqual({total: 3, succeeded: 2, cached: 0, failed: 0, skipped: 0, rejected: 1, missing: 0})
    expect(manifest.rows.map((row) => [row.index, row.status, row.data, row.webhook?.delivered])).toEqual([
      [0, 'succeeded', {customer_id: 'c-1', note: '=1+2'}, true],
      [1, 'succeeded', {customer_id: 'c-2', note: 'plain'}, true],
    ])
    expect(manifest.webhook).toMatchObject({delivered: true, attempts: 1})
    // Every row is checked by default (--on-overflow warn): the long name renders with its finding.
    expect(manifest.rows[0].warnings).toBeUndefined()
    expect(manifest.rows[1].warnings).toEqual([expect.objectContaining({code: 'text-overflow', message: expect.stringMatching(/^row 1: the text of #name \(variable "name"\) is cut off by #card/)})])

    const output = join(scratch, 'c-1.mp4')
    await stack.bucket.downloadFile('hooked/c-1.mp4', output)
    expect(await probeVideoStream(output)).toMatchObject({width: 320, height: 180, nb_read_frames: '5'})
    expect(near(await pixelAt(output, 0, 300, 160), {r: 0, g: 0, b: 255})).toBe(true)
    const sha256 = createHash('sha256').update(await readFile(output)).digest('hex')

    const lines = sheet.trimEnd().split('\n')
    expect(lines[0]).toBe('name,customer_id,note,outputKey,status,output,sha256,bytes,duration_seconds,frames,poster,render_ms,warnings,error_code,error_message')
    // The formula cell is text; the row with the finding needs review; the line that never started says why.
    expect(lines[1]).toMatch(new RegExp(`^Ada,c-1,'=1\\+2,,succeeded,s3://${stack.env.ENGINE_BUCKET}/hooked/c-1\\.mp4,${sha256},\\d+,0\\.5,5,,\\d+,,,$`))
    expect(lines[2]).toMatch(new RegExp(`^${LONG},c-2,plain,,needs-review,s3://\\S+/hooked/c-2\\.mp4,[0-9a-f]{64},\\d+,0\\.5,5,,\\d+,text-overflow,,$`))
    expect(lines[3]).toMatch(/^Bo,c-3,x,\.\.\/up\.mp4,failed,,,,,,,,,INVALID_REQUEST,"line 4: column ""outputKey"": ""\.\.\/up\.mp4"" has a ""\.\."" segment/)
    expect(lines).toHaveLength(4)

    // `engine lambda batch results` writes the same sheet again from the bucket's records.
    const rebuilt = join(scratch, 'rebuilt.csv')
    const again = await lambda(['batch', 'results', batchId, '--results', rebuilt])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain('(2 rows ended)')
    expect(await readFile(rebuilt, 'utf8')).toBe(sheet)
  })

  it('--on-overflow skip renders only the rows that fit; --check-only with --on-overflow fail renders nothing and fails the row that does not fit', async () => {
    const [skip, checkOnly] = await Promise.all([batch('skip', ['--on-overflow', 'skip']), batch('checked', ['--check-only', '--on-overflow', 'fail'])])
    expect(skip.manifest.rows.map((row) => [row.status, row.skippedReason])).toEqual([
      ['succeeded', undefined],
      ['skipped', 'text does not fit (--on-overflow skip)'],
    ])
    expect(await stack.bucket.exists('skip/c-1.mp4')).toBe(true)
    expect(await stack.bucket.exists('skip/c-2.mp4')).toBe(false)
    expect(skip.sheet.split('\n')[2]).toMatch(/,skipped,s3:\/\/\S+\/skip\/c-2\.mp4,,,,,,\d+,text-overflow,,text does not fit \(--on-overflow skip\)$/)

    expect(checkOnly.manifest.counts).toMatchObject({succeeded: 0, skipped: 1, failed: 1})
    expect(checkOnly.manifest.rows[0]).toMatchObject({status: 'skipped', skippedReason: 'checked only (--check-only): not rendered'})
    expect(checkOnly.manifest.rows[1]).toMatchObject({status: 'failed', error: {code: 'TEXT_OVERFLOW', message: expect.stringMatching(/^row 1: text does not fit \(--on-overflow fail\): the text of #name/)}})
    expect(await stack.bucket.listKeys('checked/')).toEqual([])
  })

  it('--cache: an identical row copies the first one\'s output from the bucket\'s cache/ (status cached, sha256 checked); a damaged entry is dropped and the row rendered again; --no-cache renders', async () => {
    // Two customers with the same name are one render: row data never reaches the page or the key.
    const twins = join(scratch, 'twins.csv')
    await writeFile(twins, 'name,customer_id\nAda,t-1\nAda,t-2\n')
    const run = async (name: string, flags: string[]) => {
      const started = await lambda(['render-batch', CAMPAIGN, '--batch', twins, '--output-key', `${name}/{customer_id}.mp4`, '--fps', '10', '--max-concurrent', '1', ...flags])
      const batchId = /^batch (\S+) \(run 1\)/m.exec(started.stderr)?.[1]
      expect(batchId, started.stderr).toBeDefined()
      const progress = () => getBatchProgress({batchId: batchId!, bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT})
      expect(await until(async () => (await progress()).status !== 'RUNNING', 170_000, 500)).toBe(true)
      return (await stack.bucket.getJson<BatchManifestFile>(batchManifestKey(batchId!)))!
    }
    const first = await run('twins', ['--cache'])
    expect(first.rows.map((row) => row.status)).toEqual(['succeeded', 'cached'])
    expect(first.counts).toMatchObject({succeeded: 1, cached: 1})
    expect(first.rows[1].sha256).toBe(first.rows[0].sha256)
    const [a, b] = await Promise.all(['t-1', 't-2'].map(async (id) => {
      const path = join(scratch, `twin-${id}.mp4`)
      await stack.bucket.downloadFile(`twins/${id}.mp4`, path)
      return readFile(path)
    }))
    expect(b.equals(a)).toBe(true)
    expect(createHash('sha256').update(b).digest('hex')).toBe(first.rows[1].sha256)
    // The cached row ran its plan step only: no chunk, no assembly.
    const actions = async (renderId: string) => (await stack.bucket.listKeys(`renders/${renderId}/invocations/`)).map((key) => key.split('/').at(-1)!.split(/[.-]/)[0])
    expect(await actions(first.rows[0].renderId)).toContain('renderChunk')
    expect(new Set(await actions(first.rows[1].renderId))).toEqual(new Set(['plan']))

    // Damage the stored output: the next identical row finds it, drops it and renders.
    const [entryKey] = (await stack.bucket.listKeys('cache/')).filter((key) => key.endsWith('/entry.json'))
    const objectKey = entryKey!.replace(/entry\.json$/, 'output')
    await stack.bucket.s3.send(new PutObjectCommand({Bucket: stack.env.ENGINE_BUCKET, Key: objectKey, Body: 'not the video'}))
    const [again, uncached] = await Promise.all([run('again', ['--cache']), run('uncached', ['--no-cache'])])
    expect(again.rows.map((row) => row.status)).toEqual(['succeeded', 'cached'])
    expect(again.rows[0].sha256).toBe(first.rows[0].sha256)
    const warnings = (await stack.bucket.getJson<{warnings: {code: string}[]}>(`renders/${again.rows[0].renderId}/render.json`))!.warnings
    expect(warnings.map((warning) => warning.code)).toContain('render-cache-corrupt')

    expect(uncached.rows.map((row) => row.status)).toEqual(['succeeded', 'succeeded'])
  })

  it('--resume refuses --check-only and --on-overflow: a resumed batch keeps the settings it started with', async () => {
    const result = await lambda(['render-batch', CAMPAIGN, '--resume', 'lx2k9a1b-0f3c2a', '--check-only'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/--check-only cannot be combined with --resume/)
  })
})
