import {readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {randomBytes} from 'node:crypto'
import {CreateBucketCommand, DeleteObjectCommand, GetObjectCommand} from '@aws-sdk/client-s3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {readManifest} from '../../src/lib/batch/index.js'
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

    expect((await outputs.listKeys('stills/')).sort()).toEqual(['stills/c-1.png', 'stills/c-2.png', 'stills/c-3.png'])
    const object = await outputs.s3.send(new GetObjectCommand({Bucket: outputs.bucketName, Key: 'stills/c-2.png'}))
    const png = Buffer.from(await object.Body!.transformToByteArray())
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([160, 90])

    const local = join(dir, 'renders/s3', outputs.bucketName, 'stills')
    expect(await readdir(local)).toEqual(['manifest.json'])
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
  })
})
