import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {startLocalStack, type LocalStack} from '../../packages/lambda/src/lib/lambda/local/local-stack.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'

describe('the local stack S3 API', () => {
  let directory: string
  let stack: LocalStack
  let bucket: BucketObjects

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'engine-s3-atomic-'))
    stack = await startLocalStack({directory})
    bucket = new BucketObjects(createS3Client({endpoint: stack.endpoint, localToken: stack.token}), stack.bucketName)
  })
  afterAll(async () => {
    await stack?.close()
    await rm(directory, {recursive: true, force: true})
  })

  it('a read during the write that creates an object finds no object or the whole object, never a part', async () => {
    const record = {fill: 'a'.repeat(600_000)}
    const seen: unknown[] = []
    for (let i = 0; i < 10; i++) {
      const key = `records/record-${i}.json`
      let writing = true
      const write = bucket.putJson(key, record).finally(() => (writing = false))
      while (writing) seen.push(await bucket.getJson(key))
      await write
      seen.push(await bucket.getJson(key))
    }
    expect(seen.length).toBeGreaterThan(10)
    for (const read of seen) expect([undefined, record]).toContainEqual(read)
    // The temporary files of the writes are not objects.
    expect((await bucket.listKeys('records/')).sort()).toEqual(Array.from({length: 10}, (_, i) => `records/record-${i}.json`))
  })

  it('lists a prefix of more than one page (ListObjectsV2 continuation tokens), and a listing made while objects are written never fails', async () => {
    const count = 1203
    const write = async () => {
      for (let start = 0; start < count; start += 40) {
        await Promise.all(Array.from({length: Math.min(40, count - start)}, (_, offset) => bucket.putJson(`pages/${start + offset}.json`, {index: start + offset})))
      }
    }
    const during: number[] = []
    let writing = true
    const listing = (async () => {
      while (writing) during.push((await bucket.firstKeys('pages/', 5)).length)
    })()
    await write().finally(() => (writing = false))
    await listing
    expect(during.length).toBeGreaterThan(0)
    const keys = await bucket.listKeys('pages/')
    expect(keys).toHaveLength(count)
    expect(new Set(keys).size).toBe(count)
    expect(await bucket.firstKeys('pages/', 5)).toHaveLength(5)
  })
})
