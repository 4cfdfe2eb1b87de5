import {ListObjectsV2Command, type S3Client} from '@aws-sdk/client-s3'
import type {SFNClient} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {getRenderProgress} from '../../packages/lambda/src/lib/lambda/render-progress.js'
import type {ChunkManifest, RenderRecord, RenderResultRecord} from '../../packages/lambda/src/lib/lambda/render-records.js'
import {chunkManifestKey, chunkProgressKey, chunksPrefix, renderRecordKey, renderResultKey, scratchPrefix} from '../../packages/lambda/src/lib/lambda/storage-keys.js'
import {sharedStack, type SharedStack} from '../support/shared-stack.js'

const RENDER_ID = 'progress-race'
const cost = {durationMs: 1000, memoryMb: 2048}
const browser = {version: '1.0.0.0', source: 'sparticuz', capture: 'begin-frame'} as const
const record = {
  renderId: RENDER_ID,
  chunks: [{index: 0, start: 0, end: 30}, {index: 1, start: 30, end: 60}],
  totalFrames: 60,
  maxParallelChunks: 2,
  warnings: [],
  plan: cost,
} as unknown as RenderRecord

describe('render progress while assemble finishes', () => {
  let stack: SharedStack
  let s3: S3Client
  beforeAll(async () => {
    stack = await sharedStack()
    s3 = createS3Client({endpoint: stack.env.ENGINE_AWS_ENDPOINT, localToken: stack.env.ENGINE_LOCAL_TOKEN})
  })
  afterAll(async () => {
    await stack?.bucket.deleteKeys([...(await stack.bucket.listKeys(`renders/${RENDER_ID}/`)), ...(await stack.bucket.listKeys(scratchPrefix(RENDER_ID)))])
  })

  it('a poll that straddles the result being written and the scratch deleted never counts fewer frames than before', async () => {
    const {bucket} = stack
    await bucket.putJson(renderRecordKey(RENDER_ID), record)
    await bucket.putJson(chunkManifestKey(RENDER_ID, 0), {index: 0, start: 0, end: 30, invocation: cost} as Partial<ChunkManifest>)
    await bucket.putJson(chunkProgressKey(RENDER_ID, 1), {framesDone: 25})
    // The execution still runs (its SUCCEEDED comes after assemble's last write).
    const sfn = {send: async () => ({status: 'RUNNING', input: JSON.stringify({renderId: RENDER_ID, bucketName: bucket.bucketName, outputKey: 'out/race.mp4'}), startDate: new Date()})} as unknown as SFNClient
    const progress = (client: S3Client) => getRenderProgress({render: `arn:aws:states:us-east-1:000000000000:execution:engine-render:${RENDER_ID}`, sfn, s3: client})

    const before = await progress(s3)
    expect(before.frames).toEqual({done: 55, total: 60})

    // Assemble lands while the poll is under way: right after the poll has listed the finished
    // chunks, the result is written and the scratch deleted, as assemble does.
    let landed = false
    const racing = {
      send: async (command: unknown) => {
        const answer = await s3.send(command as never)
        if (!landed && command instanceof ListObjectsV2Command && command.input.Prefix === chunksPrefix(RENDER_ID)) {
          landed = true
          const result: Partial<RenderResultRecord> = {renderId: RENDER_ID, outputKey: 'out/race.mp4', outputKind: 'file', bytes: 1, totalFrames: 60, assemble: cost, chunks: [{...cost, browser}, {...cost, browser}], warnings: []}
          await bucket.putJson(renderResultKey(RENDER_ID), result)
          await bucket.deleteKeys(await bucket.listKeys(scratchPrefix(RENDER_ID)))
        }
        return answer
      },
    } as unknown as S3Client
    const during = await progress(racing)
    expect(landed).toBe(true)
    expect(during.frames.done).toBeGreaterThanOrEqual(before.frames.done)
    expect(during.chunks).toEqual({done: 2, total: 2})
  })
})
