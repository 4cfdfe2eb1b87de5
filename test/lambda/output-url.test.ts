import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {S3Client} from '@aws-sdk/client-s3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {startLocalStack, type LocalStack} from '../../packages/lambda/src/lib/lambda/local/local-stack.js'
import {encodeKeyPath, outputUrl} from '../../packages/lambda/src/lib/lambda/output-url.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'

// Presigned by the SDK's presigner against a real S3 API on loopback: a URL is only right if S3 serves it.
describe('output URLs', () => {
  let directory: string
  let stack: LocalStack
  let s3: S3Client
  const key = 'out/a b/ünï(1)*.txt'

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'engine-output-url-'))
    stack = await startLocalStack({directory})
    s3 = createS3Client({endpoint: stack.endpoint, localToken: stack.token})
    await new BucketObjects(s3, stack.bucketName).putJson(key, {hello: 'world'})
  })
  afterAll(async () => {
    await stack?.close()
    await rm(directory, {recursive: true, force: true})
  })

  it('a presigned URL reads the object, with any characters in its key, until it expires', async () => {
    const signed = await outputUrl(s3, stack.bucketName, key, {urlExpiresInSeconds: 120})
    expect(signed).toMatchObject({privacy: 'presigned'})
    const url = new URL(signed!.url)
    expect(url.origin).toBe(stack.endpoint)
    expect(url.pathname).toBe(`/${stack.bucketName}/${encodeKeyPath(key)}`)
    expect(url.searchParams.get('X-Amz-Expires')).toBe('120')
    expect(Date.parse(signed!.expiresAt!) - Date.now()).toBeGreaterThan(110_000)
    const response = await fetch(url, {signal: AbortSignal.timeout(10_000)})
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({hello: 'world'})

    // The same URL with its signature altered is refused: the stack checks what the presigner signed.
    url.searchParams.set('X-Amz-Signature', '0'.repeat(64))
    expect((await fetch(url, {signal: AbortSignal.timeout(10_000)})).status).toBe(403)
  })

  it('temporary credentials carry their session token in the URL; public and private give the plain URL and none', async () => {
    const withSession = new S3Client({
      endpoint: stack.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: {accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token/with+chars='},
    })
    const signed = await outputUrl(withSession, stack.bucketName, key)
    expect(new URL(signed!.url).searchParams.get('X-Amz-Security-Token')).toBe('token/with+chars=')

    expect(await outputUrl(s3, stack.bucketName, key, {privacy: 'public'})).toEqual({url: `${stack.endpoint}/${stack.bucketName}/${encodeKeyPath(key)}`, privacy: 'public'})
    expect(await outputUrl(s3, stack.bucketName, key, {privacy: 'private'})).toBeUndefined()
  })

  it('on AWS, a bucket gets its own host, and a bucket name with dots the regional host (no certificate covers it)', async () => {
    const aws = new S3Client({region: 'eu-west-1', credentials: {accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret'}})
    expect(new URL((await outputUrl(aws, 'renders', 'x/y.mp4'))!.url).host).toBe('renders.s3.eu-west-1.amazonaws.com')
    const dotted = new URL((await outputUrl(aws, 'renders.example.com', 'x/y.mp4'))!.url)
    expect(`${dotted.host}${dotted.pathname}`).toBe('s3.eu-west-1.amazonaws.com/renders.example.com/x/y.mp4')
  })

  it('encodes each segment of a key and keeps its slashes', () => {
    expect(encodeKeyPath('out/a b/ünï(1)*.mp4')).toBe('out/a%20b/%C3%BCn%C3%AF%281%29%2A.mp4')
  })
})
