import {mkdir, mkdtemp, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PutObjectCommand} from '@aws-sdk/client-s3'
import type {SFNClient} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {handler} from '../../packages/lambda/src/lib/lambda/handler.js'
import {renderToLambda} from '../../packages/lambda/src/lib/lambda/render-to-lambda.js'
import {runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, startStackCli, type RunningStack} from '../lambda/support.js'
import {signedRawRequest} from './support/signed-http.js'
import {PROCESSES} from '../support/timeouts.js'

/** Keys that would name a file outside the bucket, or an ambiguous one, wherever keys become paths. */
const BAD_KEYS = ['../escape.mp4', 'renders/../../escape.mp4', '/absolute.mp4', 'a//b.mp4', 'out\\..\\escape.mp4', 'out/./x.mp4', '', 'out/']

let base: string
let stack: RunningStack

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'engine-s3-keys-'))
  await mkdir(join(base, 'stack'))
  stack = await startStackCli([], 60_000, join(base, 'stack'))
}, 60_000)

afterAll(async () => {
  await stack?.stop()
  await rm(base, {recursive: true, force: true})
})

async function allFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, {recursive: true, withFileTypes: true})).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

describe('the local S3 of engine lambda local refuses keys that leave its directory', PROCESSES, () => {
  it('400 for .., absolute, empty and backslash segments, raw or percent-encoded, in the path or a copy source', async () => {
    const {ENGINE_AWS_ENDPOINT: endpoint, ENGINE_BUCKET: bucket, ENGINE_LOCAL_TOKEN: token} = stack.env
    // Signed with the stack's token: a client holding it still cannot leave the bucket.
    const rawRequest = (url: string, options: {method?: string; body?: string; headers?: Record<string, string>} = {}) => signedRawRequest(url, token, options)
    const attempts: [string, string, Record<string, string>?][] = [
      ['PUT', `/${bucket}/../escape-1.txt`],
      ['PUT', `/${bucket}/a/../../escape-2.txt`],
      ['PUT', `/${bucket}/%2e%2e/escape-3.txt`],
      ['PUT', `/${bucket}/a%2F..%2F..%2Fescape-4.txt`],
      ['PUT', `/${bucket}/..%5cescape-5.txt`],
      ['PUT', `/${bucket}//escape-6.txt`],
      ['PUT', `/../escape-7.txt`],
      ['PUT', `/${bucket}/%2Fescape-8.txt`],
      ['GET', `/${bucket}/../../../../../../etc/hostname`],
      ['HEAD', `/${bucket}/a/../../stack`],
      ['DELETE', `/${bucket}/../stack`],
      ['PUT', `/${bucket}/copy-escape-9.txt`, {'x-amz-copy-source': `/${bucket}/../../escape-source`}],
    ]
    for (const [method, path, headers] of attempts) {
      const response = await rawRequest(endpoint + path, {method, body: method === 'PUT' ? 'pwned' : undefined, headers})
      expect(response.status, `${method} ${path}`).toBe(400)
      if (method !== 'HEAD') expect(response.body).toMatch(/<Code>InvalidArgument<\/Code><Message>the local stack refuses this request: /)
    }
    // Through the SDK, as the engine itself would send them.
    const s3 = createS3Client({endpoint})
    for (const key of ['../sdk-escape.txt', 'a/../../sdk-escape.txt']) {
      await expect(s3.send(new PutObjectCommand({Bucket: bucket, Key: key, Body: 'pwned'})), key).rejects.toThrow(/has a "\.\." segment/)
    }
    // A plain key still works: the check is not refusing everything.
    expect((await rawRequest(`${endpoint}/${bucket}/ok/plain.txt`, {method: 'PUT', body: 'fine'})).status).toBe(200)
    expect((await rawRequest(`${endpoint}/${bucket}/ok/plain.txt`)).body).toBe('fine')

    const written = await allFiles(base)
    expect(written.filter((file) => /escape/.test(file))).toEqual([])
    expect(written.every((file) => file.startsWith(join(base, 'stack') + '/'))).toBe(true)
  })
})

describe('--output-key / outputKey are checked by one rule in the CLI, the SDK and the handler', PROCESSES, () => {
  it('engine lambda render --output-key refuses a bad key before uploading anything', async () => {
    for (const key of ['../escape.mp4', '/absolute.mp4', 'a//b.mp4', 'out\\x.mp4']) {
      const result = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'project'), '--output-key', key], {env: stack.env})
      expect(result.code, key).toBe(1)
      expect(result.stderr).toMatch(/^error \[INVALID_STORAGE_KEY\]: --output-key: ".*" (has a "\.\." segment|is absolute \(starts with "\/"\)|has an empty segment \("\/\/" or a trailing "\/"\)|contains a backslash); use a relative path of names separated by "\/", such as out\/ada\.mp4/)
    }
    expect(await stack.bucket.listKeys('sites/')).toEqual([])
  })

  it('renderToLambda refuses a bad outputKey before any cloud call', async () => {
    let calls = 0
    const sfn = {send: async () => void calls++} as unknown as SFNClient
    for (const outputKey of BAD_KEYS) {
      await expect(
        renderToLambda({siteHandle: {siteId: 'site'}, bucketName: 'engine-renders', stateMachineArn: 'arn:x', config: {}, outputKey, sfn}),
        JSON.stringify(outputKey),
      ).rejects.toMatchObject({code: 'INVALID_STORAGE_KEY', message: expect.stringMatching(/^outputKey: /)})
    }
    expect(calls).toBe(0)
  })

  it('the handler refuses a plan event whose outputKey is unsafe, naming the field', async () => {
    for (const outputKey of BAD_KEYS) {
      const event = {action: 'plan', render: {renderId: 'r1', bucketName: 'engine-renders', siteId: 'site', entry: 'index.html', outputKey, config: {}}}
      await expect(handler(event), JSON.stringify(outputKey)).rejects.toMatchObject({
        name: 'Engine.INVALID_REQUEST',
        message: expect.stringContaining('render.outputKey'),
      })
    }
  })
})
