import {randomBytes} from 'node:crypto'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {startLocalStack, type LocalStack} from '../../packages/lambda/src/lib/lambda/local/local-stack.js'
import {MULTIPART_THRESHOLD_BYTES, uploadInParts} from '../../packages/lambda/src/lib/lambda/multipart-upload.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'

const MIB = 1024 * 1024

describe('uploads in parts to the local stack S3 API', () => {
  let directory: string
  let stack: LocalStack
  let bucket: BucketObjects
  /** The S3 operations sent, in order (the local S3 server's ETags do not tell a multipart object). */
  let sent: string[] = []
  const partsSent = () => sent.filter((name) => name === 'UploadPartCommand').length

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'engine-multipart-'))
    stack = await startLocalStack({directory: join(directory, 'bucket')})
    bucket = new BucketObjects(createS3Client({endpoint: stack.endpoint, localToken: stack.token}), stack.bucketName)
    bucket.s3.middlewareStack.add((next, context) => (args) => {
      sent.push(context.commandName!)
      return next(args)
    }, {step: 'initialize'})
  })
  beforeEach(() => {
    sent = []
  })
  afterAll(async () => {
    await stack?.close()
    await rm(directory, {recursive: true, force: true})
  })

  it('a file at the threshold goes up in 16 MiB parts and reads back byte for byte', async () => {
    const file = join(directory, 'output.mp4')
    await writeFile(file, randomBytes(MULTIPART_THRESHOLD_BYTES))
    expect(await bucket.uploadFile('out/large.mp4', file, 'video/mp4')).toBe(MULTIPART_THRESHOLD_BYTES)
    expect(sent).toEqual(['CreateMultipartUploadCommand', ...Array(4).fill('UploadPartCommand'), 'CompleteMultipartUploadCommand'])
    await bucket.downloadFile('out/large.mp4', join(directory, 'back.mp4'))
    expect((await readFile(join(directory, 'back.mp4'))).equals(await readFile(file))).toBe(true)
  })

  it('parts are never smaller than S3 allows (5 MiB), the last one excepted; a smaller file is one PutObject', async () => {
    const file = join(directory, 'twelve.bin')
    const bytes = randomBytes(12 * MIB + 123)
    await writeFile(file, bytes)
    await uploadInParts(bucket.s3, {bucketName: stack.bucketName, key: 'out/twelve.bin', path: file, partBytes: 1})
    expect(partsSent()).toBe(3)
    sent = []
    await bucket.uploadFile('out/small.bin', file)
    expect(sent).toEqual(['PutObjectCommand'])
    await bucket.downloadFile('out/twelve.bin', join(directory, 'twelve-back.bin'))
    expect((await readFile(join(directory, 'twelve-back.bin'))).equals(bytes)).toBe(true)
  })
})
