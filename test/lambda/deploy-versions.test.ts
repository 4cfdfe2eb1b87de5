import {mkdtemp, readdir, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {LambdaClient} from '@aws-sdk/client-lambda'
import {DescribeExecutionCommand, GetExecutionHistoryCommand, type HistoryEvent} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {clientConfig, createSfnClient} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {deployStack} from '../../packages/lambda/src/lib/lambda/deploy/deploy-stack.js'
import {listFunctionVersions, removeFunctionVersions} from '../../packages/lambda/src/lib/lambda/deploy/function-versions.js'
import {deployerPolicy} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {deniedRequests, iamRequests, recordCalls, type RecordedCall} from './iam-requests.js'
import {StandInCloud, writeBundle} from './stand-in-cloud.js'
import {LAMBDA_FIXTURES, startStackCli, type RunningStack} from './support.js'

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:engine-render'

/**
 * Deploy against the local stack's Step Functions (the workflows it updates are the ones that run
 * renders), with the rest of the account (IAM, Lambda, S3 for the code, CloudWatch) a stand-in.
 */
describe('the local stack as deploy and the operations commands see it', {timeout: 180_000}, () => {
  let stack: RunningStack
  let dir: string
  let cloud: StandInCloud
  const codeHashes = new Map<string, string>()
  const zips: string[] = []
  /** What deploy, `functions ls|rm` and `quotas` send, for the IAM evaluation at the end. */
  const calls: RecordedCall[] = []

  beforeAll(async () => {
    stack = await startStackCli()
    dir = await mkdtemp(join(tmpdir(), 'engine-deploy-versions-'))
    for (const n of [1, 2]) zips.push(await writeBundle(join(dir, `bundle-${n}.zip`), `export const handler = () => ${n}`, codeHashes))
    cloud = new StandInCloud({accountId: '000000000000', region: 'us-east-1', concurrency: 1000, memoryCapMb: 10240, codeHashes, passThrough: ['SFNClient']})
  })
  afterAll(async () => {
    await stack?.stop()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  const deploy = (codeZip: string) => deployStack({endpoint: stack.env.ENGINE_AWS_ENDPOINT, region: 'us-east-1', bucketName: stack.env.ENGINE_BUCKET, codeZip, plugins: [recordCalls(calls), cloud.plugin()]})
  const sfn = () => createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
  const recorded = <C extends {middlewareStack: {use(plugin: unknown): void}}>(client: C) => (client.middlewareStack.use(recordCalls(calls)), client)
  const versionOptions = () => ({lambda: withStandIn(recorded(new LambdaClient(clientConfig({endpoint: stack.env.ENGINE_AWS_ENDPOINT})))), sfn: recorded(sfn())})
  const withStandIn = (client: LambdaClient) => {
    client.middlewareStack.use(cloud.plugin())
    return client
  }
  const status = async (executionArn: string) => (await sfn().send(new DescribeExecutionCommand({executionArn}))).status
  /** Every function the execution's tasks invoked, as its history names them. */
  const invoked = async (executionArn: string) => {
    const events: HistoryEvent[] = []
    let nextToken: string | undefined
    do {
      const page = await sfn().send(new GetExecutionHistoryCommand({executionArn, nextToken}))
      events.push(...(page.events ?? []))
      nextToken = page.nextToken
    } while (nextToken)
    return events.filter((event) => event.type === 'LambdaFunctionScheduled').map((event) => event.lambdaFunctionScheduledEventDetails!.resource)
  }
  const startRender = async (project: string, ...flags: string[]) => {
    const started = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, project), '--json', ...flags], {env: stack.env})
    expect(started.code, started.stderr).toBe(0)
    return JSON.parse(started.stdout) as {renderId: string; executionArn: string}
  }
  const waitForEnd = async (executionArn: string) => {
    for (let tries = 0; (await status(executionArn)) === 'RUNNING' && tries < 600; tries++) await sleep(200)
    return status(executionArn)
  }

  it('runs every chunk on the version it started with; later renders take the new one; the old version is kept while it runs', async () => {
    const first = await deploy(zips[0])
    expect(first).toMatchObject({version: '1'})
    expect(first.previousVersion).toBeUndefined()

    const before = await startRender('project', '--chunk-size', '15', '--keyframe-interval', '0.5', '--max-parallel-chunks', '2')
    // Mid-render: the plan has run and chunks are under way.
    for (let tries = 0; (await invoked(before.executionArn)).length < 2 && tries < 300; tries++) await sleep(200)
    const second = await deploy(zips[1])
    expect(second).toMatchObject({version: '2', previousVersion: '1'})
    expect(await status(before.executionArn)).toBe('RUNNING')

    // While it runs, version 1 is in use and cannot be removed.
    const versions = await listFunctionVersions(versionOptions())
    expect(versions.map(({version, live, runningExecutions}) => ({version, live, runningExecutions}))).toEqual([
      {version: '2', live: true, runningExecutions: 0},
      {version: '1', live: false, runningExecutions: 1},
    ])
    const refused = await removeFunctionVersions({...versionOptions(), versions: ['1']})
    expect(await status(before.executionArn)).toBe('RUNNING')
    expect(refused).toEqual({removed: [], kept: [{version: '1', reason: '1 running execution(s) invoke it'}]})

    const after = await startRender('tiny')
    const ended = await waitForEnd(before.executionArn)
    expect(ended, JSON.stringify(await sfn().send(new DescribeExecutionCommand({executionArn: before.executionArn})))).toBe('SUCCEEDED')
    expect(await waitForEnd(after.executionArn)).toBe('SUCCEEDED')
    const oldRender = await invoked(before.executionArn)
    // Plan, every chunk (the smallest chunk is 15 frames: 6 of them) and assemble: all on version 1, none on $LATEST or version 2.
    expect(oldRender.length).toBe(8)
    expect(new Set(oldRender)).toEqual(new Set([`${FUNCTION_ARN}:1`]))
    expect(new Set(await invoked(after.executionArn))).toEqual(new Set([`${FUNCTION_ARN}:2`]))

    // Once nothing runs on it, it goes; the live one never does.
    expect(await removeFunctionVersions({...versionOptions(), keep: 1})).toEqual({removed: ['1'], kept: []})
    expect(await removeFunctionVersions({...versionOptions(), versions: ['2']})).toEqual({removed: [], kept: [{version: '2', reason: 'the live alias names it'}]})
    await expect(removeFunctionVersions({...versionOptions(), versions: ['9']})).rejects.toThrow(/version "9" of function engine-render does not exist; `engine lambda functions ls` lists them \(2\)/)
  })
  it('`lambda quotas` answers there: the machine is the account, and the function reserves all of its concurrency', async () => {
    const recording = {ENGINE_TEST_AWS_CALLS: join(dir, 'calls'), NODE_OPTIONS: `--import ${join(REPO_ROOT, 'test', 'support', 'record-aws-calls.mjs')}`}
    const result = await runCli(['lambda', 'quotas', '--json'], {env: {...stack.env, ...recording}})
    expect(result.code, result.stderr).toBe(0)
    const quotas = JSON.parse(result.stdout)
    expect(quotas).toMatchObject({region: 'us-east-1', unreservedConcurrency: 0, function: {name: 'engine-render', deployed: true, memoryMb: expect.any(Number), timeoutSeconds: 900}})
    expect(quotas.accountConcurrency).toBeGreaterThan(0)
    expect(quotas.function.reservedConcurrency).toBe(quotas.accountConcurrency)
    expect(quotas.parallelChunks).toBe(quotas.accountConcurrency)
    const text = await runCli(['lambda', 'quotas', '--name', 'other'], {env: stack.env})
    expect(text.stdout).toContain('Function other: not deployed here')
  })

  it('every call deploy, functions ls|rm and quotas made is allowed by the deployer policy (IAM policy evaluator)', async () => {
    const directory = join(dir, 'calls')
    const quotas = (await Promise.all((await readdir(directory)).map((file) => readFile(join(directory, file), 'utf8')))).join('').trim().split('\n').map((line) => JSON.parse(line) as RecordedCall)
    const account = {region: 'us-east-1', accountId: '000000000000'}
    const requests = [...calls, ...quotas].flatMap((call) => iamRequests(call, account))
    const actions = new Set(requests.map((request) => request.action))
    for (const action of ['lambda:ListVersionsByFunction', 'lambda:GetAlias', 'lambda:DeleteFunction', 'states:DescribeStateMachineForExecution', 'lambda:GetFunctionConfiguration', 'lambda:GetFunctionConcurrency', 'lambda:GetAccountSettings']) {
      expect(actions.has(action), action).toBe(true)
    }
    expect(await deniedRequests(requests, deployerPolicy({...account, bucketName: stack.env.ENGINE_BUCKET}), account.accountId)).toEqual([])
  })
})
