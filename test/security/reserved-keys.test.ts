import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PutObjectCommand} from '@aws-sdk/client-s3'
import type {SFNClient} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {handler} from '../../packages/lambda/src/lib/lambda/handler.js'
import {renderToLambda} from '../../packages/lambda/src/lib/lambda/render-to-lambda.js'
import {reservedKeyProblem} from '../../packages/lambda/src/lib/lambda/reserved-keys.js'
import {overrideEnv} from '../support/override-env.js'
import {runCli} from '../support/run-cli.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'
import {LAMBDA_FIXTURES, type RunningStack} from '../lambda/support.js'

/** Keys of the stack's own objects: its record, a render's records, a site, scratch, a batch's journal, the render cache. */
const RESERVED = ['engine-stack.json', 'renders/other-render/result.json', 'renders/other-render/output.mp4', 'sites/0123456789abcdef01234567/index.html', 'scratch/r/plan.json', 'batches/lz1abc-0a1b2c/manifest.json', 'cache/ab/cd.mp4', 'renders']
const SITE_ID = '0123456789abcdef01234567'

describe("output keys cannot reach the stack's own objects", PROCESSES, () => {
  let stack: RunningStack
  let restoreEnv: (() => void) | undefined
  let scratch: string

  beforeAll(async () => {
    stack = await sharedStack()
    restoreEnv = overrideEnv(stack.env)
    scratch = await mkdtemp(join(tmpdir(), 'engine-reserved-keys-'))
  }, 120_000)
  afterAll(async () => {
    restoreEnv?.()
    await stack?.stop()
    await rm(scratch, {recursive: true, force: true})
  })

  it("renderToLambda refuses each reserved key before any cloud call; a render's own default key passes", async () => {
    let calls = 0
    const sfn = {send: async () => ({executionArn: 'arn:x'})} as unknown as SFNClient
    const counting = {send: async () => void calls++} as unknown as SFNClient
    for (const outputKey of RESERVED) {
      await expect(renderToLambda({siteHandle: {siteId: SITE_ID}, bucketName: 'engine-renders', stateMachineArn: 'arn:x', config: {}, outputKey, sfn: counting}), outputKey).rejects.toMatchObject({
        code: 'INVALID_STORAGE_KEY',
        message: expect.stringMatching(/^outputKey: ".*" (is the stack record|is under "(renders|sites|scratch|batches|cache)\/", which the stack keeps for its own objects)/),
      })
    }
    expect(calls).toBe(0)
    const started = await renderToLambda({siteHandle: {siteId: SITE_ID}, bucketName: 'engine-renders', stateMachineArn: 'arn:x', config: {}, sfn})
    expect(started.outputKey).toBe(`renders/${started.renderId}/output.mp4`)
    // Another bucket holds none of the stack's objects.
    expect(reservedKeyProblem('renders/x.mp4', {otherBucket: true})).toBeUndefined()
  })

  it('the function refuses them too (plan and still), naming the key, before reading the site', async () => {
    const bucketName = stack.env.ENGINE_BUCKET
    for (const outputKey of RESERVED) {
      const plan = {action: 'plan', render: {renderId: 'reserved-test', bucketName, siteId: SITE_ID, entry: 'index.html', outputKey, config: {}}}
      await expect(handler(plan), outputKey).rejects.toMatchObject({name: 'Engine.INVALID_STORAGE_KEY', engineError: {message: expect.stringContaining(`outputKey: "${outputKey}"`)}})
    }
    for (const outputKey of ['renders/r/output.png', 'sites/x.png', 'scratch/x.png', 'batches/x.png', 'cache/x.png']) {
      const still = {action: 'still', still: {bucketName, siteId: SITE_ID, entry: 'index.html', outputKey, config: {}}}
      await expect(handler(still), outputKey).rejects.toMatchObject({name: 'Engine.INVALID_STORAGE_KEY'})
    }
    // A batch row's default key is its own, and only its own.
    const row = {action: 'plan', render: {renderId: 'lz1abc-0a1b2c-r1-3', bucketName, siteId: SITE_ID, entry: 'index.html', outputKey: 'batches/lz1abc-0a1b2c/4.mp4', config: {}}}
    await expect(handler(row)).rejects.toMatchObject({name: 'Engine.INVALID_STORAGE_KEY'})
    expect(reservedKeyProblem('batches/lz1abc-0a1b2c/3.mp4', {renderId: 'lz1abc-0a1b2c-r1-3'})).toBeUndefined()
  })

  it('render-batch --dry-run reports reserved row keys as invalid', async () => {
    const rows = join(scratch, 'rows.jsonl')
    await writeFile(rows, [{outputKey: 'engine-stack.json'}, {outputKey: 'renders/x/result.json'}, {outputKey: 'sites/y.mp4'}, {outputKey: 'out/fine.mp4'}].map((row) => JSON.stringify(row)).join('\n'))
    const dry = await runCli(['lambda', 'render-batch', join(LAMBDA_FIXTURES, 'project'), '--batch', rows, '--dry-run', '--json'], {env: stack.env})
    const entries = JSON.parse(dry.stdout) as {line: number; status: string; error?: {code: string; message: string}}[]
    expect(entries.map((entry) => [entry.line, entry.status, entry.error?.code])).toEqual([
      [1, 'invalid', 'INVALID_STORAGE_KEY'],
      [2, 'invalid', 'INVALID_STORAGE_KEY'],
      [3, 'invalid', 'INVALID_STORAGE_KEY'],
      [4, 'would-invoke', undefined],
    ])
  })

  it("a render or still does not replace an object already at its key unless it says overwrite", async () => {
    const bucketName = stack.env.ENGINE_BUCKET
    const s3 = createS3Client({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    await s3.send(new PutObjectCommand({Bucket: bucketName, Key: 'out/taken.mp4', Body: 'another render'}))
    await s3.send(new PutObjectCommand({Bucket: bucketName, Key: 'out/taken.png', Body: 'another still'}))
    const plan = (config: object) => ({action: 'plan', render: {renderId: 'overwrite-test', bucketName, siteId: SITE_ID, entry: 'index.html', outputKey: 'out/taken.mp4', config}})
    await expect(handler(plan({}))).rejects.toMatchObject({name: 'Engine.OUTPUT_EXISTS', engineError: {message: expect.stringMatching(/outputKey: "out\/taken\.mp4" already holds an object .*--overwrite/)}})
    const still = (config: object) => ({action: 'still', still: {bucketName, siteId: SITE_ID, entry: 'index.html', outputKey: 'out/taken.png', config}})
    await expect(handler(still({}))).rejects.toMatchObject({name: 'Engine.OUTPUT_EXISTS'})
    // Told to, both go on (and stop at the site, which does not exist here).
    for (const event of [plan({overwrite: true}), still({overwrite: true})]) {
      const error = await handler(event).then(() => undefined, (caught: Error) => caught)
      expect(error?.name).not.toBe('Engine.OUTPUT_EXISTS')
    }
  })
})
