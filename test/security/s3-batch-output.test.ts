import {randomBytes} from 'node:crypto'
import {join} from 'node:path'
import {CreateBucketCommand} from '@aws-sdk/client-s3'
import {beforeAll, describe, expect, it} from 'vitest'
import {REPO_ROOT} from '../support/run-cli.js'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {s3OutputStore} from '../../packages/lambda/src/lib/lambda/s3-output-store.js'
import {readManifest, renderBatch, type BatchRequest} from '../../src/lib/batch/index.js'
import type {OutputStore} from '../../src/lib/batch/remote-output.js'
import {sharedStack, type SharedStack} from '../support/shared-stack.js'
import {CARD, fakeRender, options, useScratchDir, writeRows} from '../batch/support.js'

/**
 * `--output s3://…` takes its key from row values: no row may climb out of the key template,
 * reach another bucket, or land on a render stack's own objects; a template that tries is refused
 * before anything renders.
 */
describe('s3:// batch outputs against hostile rows and templates', () => {
  const scratch = useScratchDir()
  let stack: SharedStack
  let plain: BucketObjects
  let store: OutputStore

  beforeAll(async () => {
    stack = await sharedStack()
    const client = {endpoint: stack.env.ENGINE_AWS_ENDPOINT, localToken: stack.env.ENGINE_LOCAL_TOKEN}
    const s3 = createS3Client(client)
    plain = new BucketObjects(s3, `engine-plain-${randomBytes(6).toString('hex')}`)
    await s3.send(new CreateBucketCommand({Bucket: plain.bucketName}))
    store = s3OutputStore(client)
  }, 180_000)

  async function run(output: string, rows: unknown, overrides: Partial<BatchRequest> = {}) {
    const dir = scratch()
    const fake = fakeRender()
    const outcome = await renderBatch({
      composition: CARD,
      batchFile: await writeRows(dir, rows),
      options: options({output}),
      render: fake.render,
      cwd: dir,
      outputStores: [store],
      ...overrides,
    }).catch((error: unknown) => error as Error & {code: string})
    return {outcome, fake, dir}
  }

  it('a row value cannot leave the key template: separators and dot runs become "_", in the same bucket', async () => {
    const hostile = ['../../other-bucket/owned', `..\\..\\${stack.env.ENGINE_BUCKET}/engine-stack.json`, '/abs/olute', '..']
    const {outcome, dir} = await run(`s3://${plain.bucketName}/videos/{customer}.mp4`, hostile.map((customer) => ({customer})))
    expect(outcome).toMatchObject({counts: {completed: 4}})
    const keys = (await plain.listKeys('')).filter((key) => key !== 'videos/manifest.json' && key !== 'videos/results.csv')
    expect(keys).toHaveLength(4)
    for (const key of keys) {
      expect(key).toMatch(/^videos\/[^/]+\.mp4$/)
      expect(key).not.toContain('..')
    }
    expect(await stack.bucket.exists('engine-stack.json')).toBe(true)
    expect(await stack.bucket.listKeys('other-bucket')).toEqual([])
    const manifest = (await readManifest(join(dir, 'renders/s3', plain.bucketName, 'videos/manifest.json')))!
    expect(manifest.rows.map((row) => row.output).sort()).toEqual(keys.map((key) => `s3://${plain.bucketName}/${key}`).sort())
  })

  it('refuses a bucket from a row, a key template that climbs or is absolute, and a malformed bucket', async () => {
    const rows = [{title: 'a', bucket: 'x'}]
    const before = await plain.listKeys('')
    for (const [output, reason] of [
      ['s3://{bucket}/videos/{index}.mp4', 'takes its bucket from a row'],
      [`s3://${plain.bucketName}/../${stack.env.ENGINE_BUCKET}/{index}.mp4`, 'has a key template that has a ".." segment'],
      [`s3://${plain.bucketName}//abs/{index}.mp4`, 'has a key template that is absolute'],
      ['s3://Not_A_Bucket/{index}.mp4', 'names the bucket "Not_A_Bucket", which is not a bucket name'],
      [`s3://${plain.bucketName}/frames/{index}`, 'names no file extension'],
      [`s3://${plain.bucketName}/streams/{index}.m3u8`, 'writes files beside its output (segments, sidecars)'],
    ]) {
      const {outcome, fake} = await run(output, rows, output.endsWith('.m3u8') ? {options: options({output, format: 'hls'})} : {})
      expect(outcome, output).toMatchObject({code: 'INVALID_FLAG', message: expect.stringContaining(reason)})
      expect(fake.calls).toEqual([])
    }
    expect(await plain.listKeys('')).toEqual(before)
  })

  it("keeps rows off a render stack's own objects in its bucket, and only there", async () => {
    const rows = [{page: 'ok'}, {page: 'x'}]
    const reserved = await run(`s3://${stack.env.ENGINE_BUCKET}/renders/{page}.mp4`, rows)
    expect(reserved.outcome).toMatchObject({code: 'BATCH_PREFLIGHT', message: expect.stringContaining('is under "renders/", which the stack keeps for its own objects')})
    expect(reserved.fake.calls).toEqual([])
    expect(await stack.bucket.listKeys('renders/ok')).toEqual([])
    // A bucket without a stack has no reserved keys.
    const elsewhere = await run(`s3://${plain.bucketName}/renders/{page}.mp4`, rows)
    expect(elsewhere.outcome).toMatchObject({counts: {completed: 2}})
  })

  it('without a store for the scheme, names what to install', async () => {
    const {outcome, fake} = await run(`s3://${plain.bucketName}/{index}.mp4`, [{title: 'a'}], {outputStores: []})
    expect(outcome).toMatchObject({code: 'INVALID_FLAG', message: expect.stringContaining(`no output store for s3:// is installed; install the serverless companion, which brings the S3 upload: \`engine plugins link ${join(REPO_ROOT, 'packages', 'lambda')} --no-install\``)})
    expect(fake.calls).toEqual([])
  })
})
