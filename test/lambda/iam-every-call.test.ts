import {readdir, readFile, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {CreateBucketCommand} from '@aws-sdk/client-s3'
import {GetExecutionHistoryCommand, ListExecutionsCommand, type HistoryEvent} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createSfnClient} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {getBatchProgress} from '../../packages/lambda/src/lib/lambda/batch/batch-progress.js'
import {deployerPolicy, renderCallerPolicy} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {stackResources} from '../../packages/lambda/src/lib/lambda/deploy/stack-resources.js'
import {STACK_RECORD_KEY, type StackRecord} from '../../packages/lambda/src/lib/lambda/stack-record.js'
import {REPO_ROOT, runCli, type CliResult} from '../support/run-cli.js'
import {until} from '../support/until.js'
import {deniedRequests, iamRequests, type IamRequest, type RecordedCall} from './iam-requests.js'
import {LAMBDA_FIXTURES, startStackCli, type RunningStack} from './support.js'

const TINY = join(LAMBDA_FIXTURES, 'tiny')
const ROWS = join(LAMBDA_FIXTURES, 'rows')
const RECORDER = join(REPO_ROOT, 'test', 'support', 'record-aws-calls.mjs')
/** The local stack's account, region and names, which the policies are generated for. */
const SCOPE = {region: 'us-east-1', accountId: '000000000000', name: 'engine-render', bucketName: 'engine-renders', outputBuckets: ['client-videos']}

interface Recorded extends RecordedCall {
  who: 'caller' | 'function' | 'workflows'
  at: number
}

/**
 * Every AWS call the render commands make (`sites create|ls|rm`, `render`, `still`, `progress`,
 * `renders ls|rm`, `render-batch --webhook`, `batch progress|results|cancel`, `cancel`), and every call the function
 * and the workflows make for them, as the SDK sends it on the offline stack (recorded in each
 * process by test/support/record-aws-calls.mjs), evaluated by an IAM policy evaluator
 * (@cloud-copilot/iam-simulate) against the policy each runs under on AWS: the caller's
 * (`lambda policies role`, and `lambda policies user`, which contains it), the function's role and
 * the state machine's role, as deploy creates them.
 */
describe('every call of the render commands, the function and the workflows is allowed by the policy it runs under', () => {
  let stack: RunningStack
  let scratch: string
  /** Where the batch's webhook goes (the local stack calls any address): it answers every call 200. */
  let receiver: Server
  let webhooks = 0
  let calls: Recorded[] = []
  let batchId = ''
  const recording = () => ({ENGINE_TEST_AWS_CALLS: join(scratch, 'calls'), NODE_OPTIONS: `--import ${RECORDER}`})
  const lambda = (args: string[]): Promise<CliResult> => runCli(['lambda', ...args], {env: {...stack.env, ...recording()}, timeoutMs: 90_000})
  const ok = async (args: string[]) => {
    const result = await lambda(args)
    expect(result.code, `${args.join(' ')}: ${result.stderr}${result.stdout}`).toBe(0)
    return result
  }
  const lastJson = (result: CliResult) => JSON.parse(result.stdout.trim().split('\n').at(-1)!)

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-iam-every-call-'))
    receiver = createServer((request, response) => {
      webhooks++
      request.resume()
      response.end('ok')
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    stack = await startStackCli([], undefined, undefined, recording())
    const startedAt = Date.now()
    // As deploy --output-bucket client-videos records it, so that renders may write there.
    const record = (await stack.bucket.getJson<StackRecord>(STACK_RECORD_KEY))!
    await stack.bucket.putJson(STACK_RECORD_KEY, {...record, outputBuckets: SCOPE.outputBuckets})
    await stack.bucket.s3.send(new CreateBucketCommand({Bucket: 'client-videos'}))
    await writeFile(join(scratch, 'rows.csv'), 'fill\n#ff0000\n#0000ff\n')

    const siteId = /^Site ID: ([0-9a-f]{24})$/m.exec((await ok(['sites', 'create', TINY])).stdout)![1]
    const site = ['--site-id', siteId]
    // Independent commands at once: the stack runs 8 invocations at a time.
    const [tagged, elsewhere, batch] = await Promise.all([
      ok(['render', TINY, ...site, '--wait', '--json', '--output-key', 'out/a.mp4', '--delete-after', '1d', '--download-name', 'A.mp4', '--poster', '0']).then(lastJson),
      ok(['render', TINY, ...site, '--wait', '--json', '--output-bucket', 'client-videos', '--output-key', 'b.mp4']).then(lastJson),
      ok(['render-batch', ROWS, '--batch', join(scratch, 'rows.csv'), '--json', '--webhook', `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, '--webhook-secret', 'iam-every-call-secret']).then((started) => /^batch (\S+) \(run 1\) runs in the cloud/m.exec(started.stderr)![1]),
      ok(['still', TINY, ...site, '--json', '--output-key', 'stills/a.png', '-o', join(scratch, 'a.png')]),
    ])
    batchId = batch
    const progress = () => getBatchProgress({batchId, bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    const cancelRunning = async () => {
      // A render cancelled while it runs, or (on a fast machine) refused as already ended: either way its calls count.
      const started = lastJson(await ok(['render', TINY, ...site, '--json', '--output-key', 'out/c.mp4']))
      const cancelled = await lambda(['cancel', started.renderId])
      expect(cancelled.code === 0 || /already ended SUCCEEDED/.test(cancelled.stderr), cancelled.stderr).toBe(true)
    }
    await Promise.all([
      ok(['progress', elsewhere.renderId, '--json']),
      ok(['renders', 'ls', '--json']),
      cancelRunning(),
      (async () => {
        // While it runs (its Distributed Map's counts), and once it ended (its manifest).
        await ok(['batch', 'progress', batchId, '--json'])
        expect(await until(async () => (await progress()).status !== 'RUNNING', 120_000, 300)).toBe(true)
        await ok(['batch', 'progress', batchId, '--json'])
        await ok(['batch', 'results', batchId])
        await ok(['batch', 'cancel', batchId, '--json'])
      })(),
    ])
    await Promise.all([ok(['renders', 'rm', tagged.renderId]), ok(['renders', 'rm', elsewhere.renderId]), ok(['sites', 'ls', '--json'])])
    await ok(['sites', 'rm', siteId])

    const directory = join(scratch, 'calls')
    const lines = (await Promise.all((await readdir(directory)).map((file) => readFile(join(directory, file), 'utf8')))).join('').trim().split('\n')
    // Before the commands: the stack writing its own record, as deploy would on AWS.
    calls = lines.map((line) => JSON.parse(line) as Recorded).filter((call) => call.at >= startedAt)
  }, 420_000)
  afterAll(async () => {
    await stack?.stop()
    await new Promise((resolve) => receiver?.close(resolve))
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  const requestsOf = (who: Recorded['who']): IamRequest[] => calls.filter((call) => call.who === who).flatMap((call) => iamRequests(call, SCOPE))
  const actionsOf = (requests: IamRequest[]) => [...new Set(requests.map((request) => request.action))].sort()
  const granted = (policy: {Statement: {Effect: string; Action: string[]}[]}) => new Set(policy.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) => statement.Action))

  it('the commands: allowed by `lambda policies role` and by `lambda policies user`; every grant of the role policy is used', async () => {
    const requests = requestsOf('caller')
    const used = new Set(requests.map((request) => request.action))
    // What a fast machine may not get to: the cancel stopping the render, batch progress while the batch runs.
    const raced = ['states:StopExecution', 'states:ListMapRuns', 'states:DescribeMapRun'].filter((action) => used.has(action))
    expect([...used].sort()).toEqual(
      ['lambda:InvokeFunction', 's3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject', 'states:DescribeExecution', 'states:GetExecutionHistory', 'states:ListExecutions', 'states:StartExecution', ...raced].sort(),
    )
    // Objects in the other bucket: progress reads the output there, renders rm deletes it.
    expect(requests.filter((request) => request.resource.startsWith('arn:aws:s3:::client-videos/')).map((request) => request.action)).toEqual(expect.arrayContaining(['s3:GetObject', 's3:DeleteObject']))
    expect(await deniedRequests(requests, renderCallerPolicy(SCOPE), SCOPE.accountId)).toEqual([])
    expect(await deniedRequests(requests, deployerPolicy(SCOPE), SCOPE.accountId)).toEqual([])
    expect([...granted(renderCallerPolicy(SCOPE))].filter((action) => !used.has(action)).sort()).toEqual(
      [
        // Aborting an upload in parts that failed (files of 64 MiB and more).
        's3:AbortMultipartUpload',
        ...['states:StopExecution', 'states:ListMapRuns', 'states:DescribeMapRun'].filter((action) => !used.has(action)),
      ].sort(),
    )
  })

  it('the function: allowed by its role (the tagged output, the other bucket, the poster, the still, the batch\'s webhooks and result sheet)', async () => {
    const requests = requestsOf('function')
    // Each row's and the batch's end (the function calls them).
    expect(webhooks).toBeGreaterThanOrEqual(3)
    expect(actionsOf(requests)).toEqual(expect.arrayContaining(['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging', 's3:DeleteObject', 's3:ListBucket']))
    expect(requests.some((request) => request.action === 's3:PutObject' && request.resource.startsWith('arn:aws:s3:::client-videos/'))).toBe(true)
    const role = stackResources(SCOPE).functionRole.PolicyDocument
    expect(await deniedRequests(requests, role, SCOPE.accountId)).toEqual([])
  })

  it('the workflows: the batch Map\'s item reads and result writes, allowed by the state machine\'s role', async () => {
    const requests = requestsOf('workflows')
    expect(actionsOf(requests)).toEqual(['s3:GetObject', 's3:PutObject'])
    expect(requests.every((request) => request.resource.startsWith(`arn:aws:s3:::${SCOPE.bucketName}/batches/`))).toBe(true)
    const role = stackResources(SCOPE).stateMachineRole.PolicyDocument
    expect(await deniedRequests(requests, role, SCOPE.accountId)).toEqual([])
  })

  it('the workflows\' service integrations, as their histories show them: the function invoked, each batch row\'s render started and followed (startExecution.sync:2), allowed by the state machine\'s role', async () => {
    const sfn = createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    const renderMachine = stack.env.ENGINE_SFN_ARN
    const executions = (await Promise.all([renderMachine, `${renderMachine}-batch`].map((stateMachineArn) => sfn.send(new ListExecutionsCommand({stateMachineArn, maxResults: 1000}))))).flatMap((page) => page.executions ?? [])
    const requests: IamRequest[] = []
    for (const execution of executions) {
      const events: HistoryEvent[] = []
      for (let nextToken: string | undefined, first = true; first || nextToken; first = false) {
        const page = await sfn.send(new GetExecutionHistoryCommand({executionArn: execution.executionArn, nextToken}))
        events.push(...(page.events ?? []))
        nextToken = page.nextToken
      }
      for (const event of events.filter((event) => event.type === 'LambdaFunctionScheduled')) {
        requests.push({action: 'lambda:InvokeFunction', resource: event.lambdaFunctionScheduledEventDetails!.resource!, call: 'LambdaTask'})
      }
      // A batch row's render, which the batch workflow starts and waits for through EventBridge's managed rule (AWS's policy for .sync).
      if (execution.stateMachineArn === renderMachine && execution.name!.startsWith(batchId)) {
        const rule = `arn:aws:events:${SCOPE.region}:${SCOPE.accountId}:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule`
        requests.push(
          {action: 'states:StartExecution', resource: renderMachine, call: 'startExecution.sync:2'},
          ...['states:DescribeExecution', 'states:StopExecution'].map((action) => ({action, resource: execution.executionArn!, call: 'startExecution.sync:2'})),
          ...['events:PutTargets', 'events:PutRule', 'events:DescribeRule'].map((action) => ({action, resource: rule, call: 'startExecution.sync:2'})),
        )
      }
    }
    // Every render's chunks and both rows' renders.
    expect(requests.filter((request) => request.action === 'lambda:InvokeFunction').length).toBeGreaterThan(6)
    expect(requests.filter((request) => request.action === 'states:StartExecution')).toHaveLength(2)
    const role = stackResources(SCOPE).stateMachineRole.PolicyDocument
    expect(await deniedRequests(requests, role, SCOPE.accountId)).toEqual([])
  })
})
