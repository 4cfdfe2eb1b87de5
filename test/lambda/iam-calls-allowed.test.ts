import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {deployStack} from '../../packages/lambda/src/lib/lambda/deploy/deploy-stack.js'
import {destroyStack} from '../../packages/lambda/src/lib/lambda/deploy/destroy-stack.js'
import {deployerPolicy} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {overrideEnv} from '../support/override-env.js'
import {deniedRequests, iamRequests, type IamRequest} from './iam-requests.js'
import {StandInCloud, writeBundle} from './stand-in-cloud.js'

const ACCOUNT = '123456789012'
const REGION = 'eu-west-1'
const OUTPUT_BUCKET = 'client-videos'

/**
 * Every call `engine lambda deploy` makes, as the real SDK builds it, evaluated against the policy
 * `lambda policies user` prints, by an IAM policy evaluator (@cloud-copilot/iam-simulate). The
 * answers come from the recorded-call stand-in for AWS (stand-in-cloud.ts): no AWS control-plane
 * emulator runs here (moto is on PyPI, which this machine cannot reach).
 */
describe('every call deploy and destroy make is allowed by the deployer policy', () => {
  let dir: string
  let zip: string
  let nextZip: string
  const codeHashes = new Map<string, string>()
  let restoreEnv: (() => void) | undefined
  beforeAll(async () => {
    restoreEnv = overrideEnv({AWS_ACCESS_KEY_ID: 'AKIASTANDIN', AWS_SECRET_ACCESS_KEY: 'stand-in-secret'})
    dir = await mkdtemp(join(tmpdir(), 'engine-iam-calls-'))
    zip = await writeBundle(join(dir, 'a.zip'), 'export const handler = () => 1', codeHashes)
    nextZip = await writeBundle(join(dir, 'b.zip'), 'export const handler = () => 2', codeHashes)
  })
  afterAll(async () => {
    restoreEnv?.()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('a first deploy (reserved concurrency, an output bucket), an update and lambda destroy --delete-bucket: no call denied, and the deploy grants are all used', async () => {
    const cloud = new StandInCloud({accountId: ACCOUNT, region: REGION, concurrency: 1000, memoryCapMb: 10240, codeHashes})
    const options = {region: REGION, plugins: [cloud.plugin()], env: {}, outputBuckets: [OUTPUT_BUCKET], onWarning: () => {}}
    await deployStack({...options, codeZip: zip, reservedConcurrency: 20})
    await deployStack({...options, codeZip: nextZip})
    await destroyStack({region: REGION, plugins: [cloud.plugin()], env: {}, deleteBucket: true, confirmBucket: async () => true})
    const requests: IamRequest[] = cloud.calls.flatMap((call) => iamRequests({command: call.command.replace(/Command$/, ''), input: call.input as Record<string, any>}, {region: REGION, accountId: ACCOUNT}))
    expect(requests.length).toBeGreaterThan(40)
    const policy = deployerPolicy({accountId: ACCOUNT, region: REGION, outputBuckets: [OUTPUT_BUCKET]})
    expect(await deniedRequests(requests, policy, ACCOUNT)).toEqual([])
    // The evaluator does deny: the same calls under the policy as it was before the :* fix.
    const before = JSON.parse(JSON.stringify(policy).replaceAll('log-group:/aws/lambda/engine-render:*', 'log-group:/aws/lambda/engine-render'))
    expect([...new Set(await deniedRequests(requests, before, ACCOUNT))]).toEqual([
      `CreateLogGroup: logs:CreateLogGroup on arn:aws:logs:${REGION}:${ACCOUNT}:log-group:/aws/lambda/engine-render:*: ImplicitlyDenied`,
      `PutRetentionPolicy: logs:PutRetentionPolicy on arn:aws:logs:${REGION}:${ACCOUNT}:log-group:/aws/lambda/engine-render:*: ImplicitlyDenied`,
      `DeleteLogGroup: logs:DeleteLogGroup on arn:aws:logs:${REGION}:${ACCOUNT}:log-group:/aws/lambda/engine-render:*: ImplicitlyDenied`,
    ])
    // Granted but not called by deploy or destroy: what the render commands, quotas and functions ls|rm send.
    const used = new Set(requests.map((request) => request.action))
    const granted = new Set(policy.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) => statement.Action))
    expect([...granted].filter((action) => !used.has(action)).sort()).toEqual(
      [
        // lambda functions ls|rm, lambda quotas: evaluated in deploy-versions.test.ts
        'lambda:ListVersionsByFunction', 'lambda:GetFunctionConfiguration', 'lambda:GetFunctionConcurrency', 'states:DescribeStateMachineForExecution',
        // the caller's part (sites, render, progress, batch, cancel, renders rm, still): evaluated in iam-every-call.test.ts
        's3:AbortMultipartUpload', 'states:StartExecution', 'states:ListExecutions', 'states:DescribeExecution', 'states:GetExecutionHistory',
        'states:StopExecution', 'states:ListMapRuns', 'states:DescribeMapRun', 'lambda:InvokeFunction',
        // deploy reads the lifecycle rules of the stack's bucket only when it has some
        ...(used.has('s3:GetLifecycleConfiguration') ? [] : ['s3:GetLifecycleConfiguration']),
      ].sort(),
    )
  })
})
