import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {HeadBucketCommand} from '@aws-sdk/client-s3'
import {DescribeStateMachineCommand} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createSfnClient} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {deployStack} from '../../packages/lambda/src/lib/lambda/deploy/deploy-stack.js'
import {destroyStack} from '../../packages/lambda/src/lib/lambda/deploy/destroy-stack.js'
import {deployerPolicy} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {overrideEnv} from '../support/override-env.js'
import {runCli} from '../support/run-cli.js'
import {deniedRequests, iamRequests, recordCalls, type RecordedCall} from './iam-requests.js'
import {StandInCloud, writeBundle} from './stand-in-cloud.js'
import {LAMBDA_FIXTURES, startStackCli, type RunningStack} from './support.js'

const ACCOUNT = '123456789012'
const REGION = 'eu-west-1'
const BUCKET = `engine-render-${ACCOUNT}-${REGION}`

/**
 * `engine lambda destroy` against the recorded-call stand-in for AWS (the real SDK's requests; no
 * AWS control-plane emulator runs here, and the offline stack has no IAM, Lambda or EventBridge
 * control plane to remove).
 */
describe('lambda destroy removes what deploy created', () => {
  let dir: string
  let zip: string
  const codeHashes = new Map<string, string>()
  let restoreEnv: (() => void) | undefined
  beforeAll(async () => {
    restoreEnv = overrideEnv({AWS_ACCESS_KEY_ID: 'AKIASTANDIN', AWS_SECRET_ACCESS_KEY: 'stand-in-secret'})
    dir = await mkdtemp(join(tmpdir(), 'engine-destroy-'))
    zip = await writeBundle(join(dir, 'a.zip'), 'export const handler = () => 1', codeHashes)
  })
  afterAll(async () => {
    restoreEnv?.()
    if (dir) await rm(dir, {recursive: true, force: true})
  })
  const deployed = async () => {
    const cloud = new StandInCloud({accountId: ACCOUNT, region: REGION, concurrency: 1000, memoryCapMb: 10240, codeHashes})
    await deployStack({region: REGION, codeZip: zip, plugins: [cloud.plugin()], env: {}, onWarning: () => {}})
    // A render's output beside the deploy's objects.
    cloud.objects.add('renders/r1/out.mp4')
    cloud.calls.length = 0
    return cloud
  }

  it('in the reverse of deploy\'s order, keeping the bucket and what renders put there; run again, it passes over what is gone', async () => {
    const cloud = await deployed()
    const first = await destroyStack({region: REGION, plugins: [cloud.plugin()], env: {}})
    expect(first.deleted).toEqual([
      'alarms engine-render-invocations-per-hour, engine-render-function-faults, engine-render-composition-errors, engine-render-failed-executions, engine-render-timed-out-executions, engine-render-failed-batches',
      'rule engine-render-execution-ended',
      'state machine engine-render-batch',
      'state machine engine-render',
      'log group /aws/lambda/engine-render',
      'alias engine-render:live',
      'function engine-render (all versions)',
      'policy engine-render-function of role engine-render-function',
      'role engine-render-function',
      'policy engine-render-state-machine of role engine-render-state-machine',
      'role engine-render-state-machine',
    ])
    expect(first).toMatchObject({bucketName: BUCKET, bucketDeleted: false, objectsDeleted: 2})
    expect(cloud.commands).not.toContain('DeleteBucket')
    expect([...cloud.objects]).toEqual(['renders/r1/out.mp4'])
    expect(cloud.fn).toBeUndefined()
    expect(cloud.roles.size).toBe(0)
    expect(cloud.machines.size).toBe(0)

    expect([cloud.alarms.size, cloud.rules.size, cloud.logGroups.size, cloud.rolePolicies.size]).toEqual([0, 0, 0, 0])

    const again = await destroyStack({region: REGION, plugins: [cloud.plugin()], env: {}})
    expect(again).toEqual({deleted: [], bucketName: BUCKET, objectsDeleted: 0, bucketDeleted: false})
  })

  it('--delete-bucket lists what the bucket holds and asks first: no, and nothing is deleted; yes, and it is emptied and deleted', async () => {
    const cloud = await deployed()
    const asked: unknown[] = []
    const refused = await destroyStack({region: REGION, plugins: [cloud.plugin()], env: {}, deleteBucket: true, confirmBucket: async (bucket) => (asked.push(bucket), false)}).catch((error: unknown) => error)
    expect(isEngineError(refused) && refused.code).toBe('CANCELLED')
    expect(asked).toEqual([{bucketName: BUCKET, objects: 3, byFolder: {'deploy/': 1, 'engine-stack.json': 1, 'renders/': 1}}])
    expect(cloud.commands.filter((command) => /^Delete/.test(command))).toEqual([])

    const done = await destroyStack({region: REGION, plugins: [cloud.plugin()], env: {}, deleteBucket: true, confirmBucket: async () => true})
    expect(done).toMatchObject({bucketDeleted: true, objectsDeleted: 3})
    expect(done.deleted.at(-1)).toBe(`bucket ${BUCKET}`)
    expect(cloud.objects.size).toBe(0)
  })
})

/**
 * Deploy, a render and destroy on the offline stack: the bucket is s3rver's and the workflows are
 * the local Step Functions' (deploy updates or creates them, renders run them, destroy deletes
 * them); IAM, the Lambda control plane, CloudWatch, EventBridge, STS and S3's public access block,
 * which the offline stack has not, stay the recorded-call stand-in. Every call is evaluated against the deployer policy.
 */
describe('lambda destroy on the offline stack: deploy, render, destroy, destroy again', {timeout: 240_000}, () => {
  const LOCAL = {accountId: '000000000000', region: 'us-east-1'}
  const DEFAULT_BUCKET = `engine-render-${LOCAL.accountId}-${LOCAL.region}`
  let stack: RunningStack
  let dir: string
  let zip: string
  let cloud: StandInCloud
  const calls: RecordedCall[] = []
  const codeHashes = new Map<string, string>()
  let restoreEnv: (() => void) | undefined
  beforeAll(async () => {
    restoreEnv = overrideEnv({AWS_ACCESS_KEY_ID: 'AKIASTANDIN', AWS_SECRET_ACCESS_KEY: 'stand-in-secret'})
    ;[stack, dir] = await Promise.all([startStackCli(), mkdtemp(join(tmpdir(), 'engine-destroy-offline-'))])
    zip = await writeBundle(join(dir, 'a.zip'), 'export const handler = () => 1', codeHashes)
    cloud = new StandInCloud({...LOCAL, concurrency: 1000, memoryCapMb: 10240, codeHashes, passThrough: ['S3Client', 'SFNClient'], answered: ['PutPublicAccessBlockCommand']})
  })
  afterAll(async () => {
    restoreEnv?.()
    await stack?.stop()
    if (dir) await rm(dir, {recursive: true, force: true})
  })
  const options = () => ({endpoint: stack.env.ENGINE_AWS_ENDPOINT, region: LOCAL.region, plugins: [recordCalls(calls), cloud.plugin()], onWarning: () => {}})
  /** Which of the two workflows (render, batch) the offline stack's Step Functions has. */
  const workflows = () => {
    const sfn = createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    const described = (arn: string) => sfn.send(new DescribeStateMachineCommand({stateMachineArn: arn})).then(() => true, (error: Error) => (error.name === 'StateMachineDoesNotExist' ? false : Promise.reject(error)))
    return Promise.all([described(stack.env.ENGINE_SFN_ARN), described(`${stack.env.ENGINE_SFN_ARN}-batch`)])
  }
  const render = (outputKey: string) => runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'tiny'), '--wait', '--output-key', outputKey], {env: {...stack.env, ENGINE_BUCKET: DEFAULT_BUCKET}})

  it('destroy removes the workflows and the deployer\'s objects from the stack and keeps the render\'s; run again, it deletes nothing; deploy brings the stack back', async () => {
    await deployStack({...options(), codeZip: zip})
    const bucket = new BucketObjects(stack.bucket.s3, DEFAULT_BUCKET)
    expect((await bucket.listKeys('deploy/')).length).toBe(1)
    const rendered = await render('out/kept.mp4')
    expect(rendered.code, rendered.stderr).toBe(0)
    const renderId = /^renderId: (\S+)$/m.exec(rendered.stderr)![1]

    const destroyed = await destroyStack(options())
    expect(destroyed.deleted).toContain('state machine engine-render-batch')
    expect(destroyed.deleted).toContain('state machine engine-render')
    expect(destroyed).toMatchObject({bucketName: DEFAULT_BUCKET, bucketDeleted: false, objectsDeleted: 2})
    expect(await workflows()).toEqual([false, false])
    expect(await bucket.listKeys('deploy/')).toEqual([])
    expect(await bucket.exists('engine-stack.json')).toBe(false)
    // What the render left is the user's: the output, its records, the site.
    expect(await bucket.exists('out/kept.mp4')).toBe(true)
    expect((await bucket.listKeys(`renders/${renderId}/`)).length).toBeGreaterThan(0)
    expect((await bucket.listKeys('sites/')).length).toBeGreaterThan(0)
    expect([cloud.fn, cloud.roles.size, cloud.rolePolicies.size, cloud.alarms.size, cloud.rules.size, cloud.logGroups.size]).toEqual([undefined, 0, 0, 0, 0, 0])
    // Nothing is left to render with.
    const refused = await render('out/after.mp4')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/StateMachineDoesNotExist|State Machine Does Not Exist/)

    expect(await destroyStack(options())).toEqual({deleted: [], bucketName: DEFAULT_BUCKET, objectsDeleted: 0, bucketDeleted: false})

    // Deploy creates the workflows again (CreateStateMachine on the stack's Step Functions).
    await deployStack({...options(), codeZip: zip})
    expect(await workflows()).toEqual([true, true])
  })

  it('--delete-bucket asks first: no, and nothing is deleted; yes, and the bucket with the renders in it is gone; every call was the deployer policy\'s', async () => {
    const bucket = new BucketObjects(stack.bucket.s3, DEFAULT_BUCKET)
    const before = await bucket.listKeys('')
    const refused = await destroyStack({...options(), deleteBucket: true, confirmBucket: async () => false}).catch((error: unknown) => error)
    expect(isEngineError(refused) && refused.code).toBe('CANCELLED')
    expect(await workflows()).toEqual([true, true])
    expect(await bucket.listKeys('')).toEqual(before)

    const done = await destroyStack({...options(), deleteBucket: true, confirmBucket: async () => true})
    expect(done).toMatchObject({bucketDeleted: true, objectsDeleted: before.length})
    expect(await workflows()).toEqual([false, false])
    const head = await stack.bucket.s3.send(new HeadBucketCommand({Bucket: DEFAULT_BUCKET})).then(() => 'there', (error: Error) => error.name)
    expect(head).toBe('NotFound')

    const requests = calls.flatMap((call) => iamRequests(call, LOCAL))
    expect(new Set(requests.map((request) => request.action))).toContain('states:DeleteStateMachine')
    expect(await deniedRequests(requests, deployerPolicy(LOCAL), LOCAL.accountId)).toEqual([])
  })
})
