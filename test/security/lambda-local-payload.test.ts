import {createHash} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'
import type {RunningStack} from '../lambda/support.js'
import {signedRawRequest} from './support/signed-http.js'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * A signed S3 request covers its body only through x-amz-content-sha256: whoever captured one
 * could send it again, within its 15 minutes, with another body. The local stack hashes the body.
 */
describe('lambda local checks an S3 body against its signed hash', PROCESSES, () => {
  let stack: RunningStack
  beforeAll(async () => {
    stack = await sharedStack()
  }, 120_000)
  afterAll(async () => {
    await stack?.stop()
  })

  it('a body that is not the one signed is refused with XAmzContentSHA256Mismatch and not stored', async () => {
    const {ENGINE_AWS_ENDPOINT: endpoint, ENGINE_BUCKET: bucket, ENGINE_LOCAL_TOKEN: token} = stack.env
    const url = `${endpoint}/${bucket}/payload/record.json`
    const signedFor = (body: string, sent: string) => signedRawRequest(url, token, {method: 'PUT', body: sent, headers: {'x-amz-content-sha256': sha256(body)}})
    const replayed = await signedFor('{"ok":true}', '{"ok":false,"pwned":true}')
    expect(replayed.status).toBe(400)
    expect(replayed.body).toMatch(/<Code>XAmzContentSHA256Mismatch<\/Code>/)
    const objects = new BucketObjects(createS3Client({endpoint, localToken: token}), bucket)
    expect(await objects.exists('payload/record.json')).toBe(false)
    // Same length, one byte changed: still refused.
    expect((await signedFor('{"ok":true}', '{"ok":True}')).status).toBe(400)
    // The body that was signed goes through, and the SDK's own writes (hashed bodies) too.
    expect((await signedFor('{"ok":true}', '{"ok":true}')).status).toBe(200)
    expect(await objects.getJson('payload/record.json')).toEqual({ok: true})
    await objects.putJson('payload/sdk.json', {written: 'by the SDK'})
    expect(await objects.getJson('payload/sdk.json')).toEqual({written: 'by the SDK'})
  })
})
