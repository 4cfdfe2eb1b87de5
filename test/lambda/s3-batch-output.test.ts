import {mkdir, readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {randomBytes} from 'node:crypto'
import {CreateBucketCommand, DeleteObjectCommand, GetObjectCommand} from '@aws-sdk/client-s3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {s3OutputStore} from '../../packages/lambda/src/lib/lambda/s3-output-store.js'
import {readManifest, renderBatch, type BatchManifest} from '../../src/lib/batch/index.js'
import {CARD as FAKE_CARD, fakeRender, options, writeRows} from '../batch/support.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {sharedStack, type SharedStack} from '../support/shared-stack.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

const CARD = join(REPO_ROOT, 'test/batch/fixtures/card.html')

/**
 * `engine still --batch -o 's3://bucket/…'` with the serverless companion installed, against the
 * repository's S3 API server on loopback: each row is rendered locally, uploaded, and recorded by
 * its URL; `--resume` checks the stored objects.
 */
describe('batch outputs in an S3-compatible store', PROCESSES, () => {
  const scratch = useScratchDir('engine-s3-batch-')
  let stack: SharedStack
  let outputs: BucketObjects

  beforeAll(async () => {
    stack = await sharedStack()
    const s3 = createS3Client({endpoint: stack.env.ENGINE_AWS_ENDPOINT, localToken: stack.env.ENGINE_LOCAL_TOKEN})
    const name = `engine-out-${randomBytes(6).toString('hex')}`
    await s3.send(new CreateBucketCommand({Bucket: name}))
    outputs = new BucketObjects(s3, name)
  }, 180_000)
  afterAll(async () => stack?.stop())

  it('uploads every row to its key, records the s3:// URLs, keeps no local copy, and --resume renders only a row whose object is gone', async () => {
    const dir = scratch()
    await writeFile(join(dir, 'rows.csv'), 'customer_id,title\nc-1,Ada\nc-2,Bo\nc-3,Cy\n')
    const template = `s3://${outputs.bucketName}/stills/{customer_id}.png`
    const still = (extra: string[] = []) =>
      runCli(['still', CARD, '--batch', 'rows.csv', '-o', template, '--scale', '0.5', '--json', ...extra], {cwd: dir, env: {...stack.env, ENGINE_BUCKET: ''}})
    const first = await still()
    expect(first.code, first.stderr).toBe(0)

    expect((await outputs.listKeys('stills/')).sort()).toEqual(['stills/c-1.png', 'stills/c-2.png', 'stills/c-3.png', 'stills/manifest.json', 'stills/results.csv'])
    const object = await outputs.s3.send(new GetObjectCommand({Bucket: outputs.bucketName, Key: 'stills/c-2.png'}))
    const png = Buffer.from(await object.Body!.transformToByteArray())
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([160, 90])

    const local = join(dir, 'renders/s3', outputs.bucketName, 'stills')
    expect((await readdir(local)).sort()).toEqual(['manifest.json', 'results.csv'])
    const manifest = (await readManifest(join(local, 'manifest.json')))!
    expect(manifest.outputTemplate).toBe(template)
    expect(manifest.rows.map((row) => [row.status, row.output])).toEqual(['c-1', 'c-2', 'c-3'].map((id) => ['completed', `s3://${outputs.bucketName}/stills/${id}.png`]))
    expect(manifest.rows[1].bytes).toBe(png.length)
    const rowEvents = first.stdout.split('\n').filter((line) => line.includes('"type":"row"')).map((line) => JSON.parse(line))
    expect(rowEvents.at(-1)).toMatchObject({status: 'completed', output: expect.stringMatching(/^s3:\/\//)})

    await outputs.s3.send(new DeleteObjectCommand({Bucket: outputs.bucketName, Key: 'stills/c-3.png'}))
    const second = await still(['--resume'])
    expect(second.code, second.stderr).toBe(0)
    const events = second.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
    expect(events).toContainEqual(expect.objectContaining({type: 'warning', code: 'output-missing', message: expect.stringContaining(`row 2 was completed but s3://${outputs.bucketName}/stills/c-3.png is gone`)}))
    expect(events.filter((event) => event.type === 'row' && event.status === 'running').map((event) => event.row)).toEqual([2])
    expect(await outputs.exists('stills/c-3.png')).toBe(true)
    expect(JSON.parse(await readFile(join(local, 'manifest.json'), 'utf8')).counts.completed).toBe(3)
    // The whole batch's manifest is put beside its outputs too.
    expect(await outputs.exists('stills/manifest.json')).toBe(true)
  })

  it('shards on machines without a shared folder put their manifests in the bucket, and merge joins them from there', async () => {
    const machine = async (name: string) => {
      const dir = join(scratch(), name)
      await mkdir(dir, {recursive: true})
      return dir
    }
    const rows = Array.from({length: 5}, (_, index) => ({title: `Row ${index}`}))
    const template = `s3://${outputs.bucketName}/sharded/{index}.mp4`
    const store = s3OutputStore({endpoint: stack.env.ENGINE_AWS_ENDPOINT, localToken: stack.env.ENGINE_LOCAL_TOKEN})
    const shardOn = async (dir: string, index: number) =>
      renderBatch({
        composition: FAKE_CARD,
        batchFile: await writeRows(dir, rows),
        options: options({output: template}),
        render: fakeRender().render,
        cwd: dir,
        outputStores: [store],
        shard: {index, count: 2, scheduler: 'flag', from: '--shard'},
      })
    await shardOn(await machine('worker-0'), 0)
    const merger = await machine('merger')
    const early = await runCli(['batch', 'merge', `s3://${outputs.bucketName}/sharded`], {cwd: merger, env: stack.env})
    expect(early.code).toBe(1)
    expect(early.stderr).toContain('shard 1 of 2: missing: there is no manifest.shard-1-of-2.json')
    expect(early.stderr).toContain('so a shard still running is missing there too')

    await shardOn(await machine('worker-1'), 1)
    expect((await outputs.listKeys('sharded/')).sort()).toEqual(['sharded/0.mp4', 'sharded/1.mp4', 'sharded/2.mp4', 'sharded/3.mp4', 'sharded/4.mp4', 'sharded/manifest.shard-0-of-2.json', 'sharded/manifest.shard-1-of-2.json', 'sharded/results.shard-0-of-2.csv', 'sharded/results.shard-1-of-2.csv'])
    const merge = await runCli(['batch', 'merge', `s3://${outputs.bucketName}/sharded`, '--json'], {cwd: merger, env: stack.env})
    expect(merge.code, merge.stdout).toBe(0)
    expect(JSON.parse(merge.stdout)).toMatchObject({shards: 2, counts: {completed: 5}, url: `s3://${outputs.bucketName}/sharded/manifest.json`})
    const object = await outputs.s3.send(new GetObjectCommand({Bucket: outputs.bucketName, Key: 'sharded/manifest.json'}))
    const merged = JSON.parse(await object.Body!.transformToString()) as BatchManifest
    expect(merged.rows.map((row) => [row.index, row.status, row.output])).toEqual(rows.map((_, index) => [index, 'completed', `s3://${outputs.bucketName}/sharded/${index}.mp4`]))
  })
})
