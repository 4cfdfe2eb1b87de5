import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {deployStack} from '../../packages/lambda/src/lib/lambda/deploy/deploy-stack.js'
import {destroyStack} from '../../packages/lambda/src/lib/lambda/deploy/destroy-stack.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {overrideEnv} from '../support/override-env.js'
import {StandInCloud, writeBundle} from './stand-in-cloud.js'

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

    const again = await destroyStack({region: REGION, plugins: [cloud.plugin()], env: {}})
    expect(again.deleted.filter((what) => /^(function|role|state machine|alias)/.test(what))).toEqual([])
    expect(again.objectsDeleted).toBe(0)
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
