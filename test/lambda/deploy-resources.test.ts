import {describe, expect, it} from 'vitest'
import {HANDLER, stackResources, type PolicyDocument} from '../../src/lib/lambda/deploy/stack-resources.js'
import {runCli} from '../support/run-cli.js'

const resources = stackResources({region: 'eu-west-1', accountId: '123456789012', reservedConcurrency: 64})
const BUCKET = 'engine-render-123456789012-eu-west-1'
const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:engine-render'

const actions = (policy: PolicyDocument) => policy.Statement.flatMap((statement) => statement.Action)
const resourcesOf = (policy: PolicyDocument) => policy.Statement.flatMap((statement) => [statement.Resource ?? []].flat())

describe('what `engine lambda deploy` creates', () => {
  it('a private bucket whose render scratch expires and whose unfinished uploads are aborted, and nothing else', () => {
    expect(resources.bucket.Bucket).toBe(BUCKET)
    expect(resources.bucket.PublicAccessBlockConfiguration).toEqual({BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true})
    const rules = resources.bucket.LifecycleConfiguration.Rules
    expect(rules).toHaveLength(2)
    expect(rules[0]).toMatchObject({Status: 'Enabled', Filter: {Prefix: 'scratch/'}, Expiration: {Days: 3}})
    // Bucket-wide: outputs and sites are uploaded in parts as well as scratch.
    expect(rules[1]).toEqual({ID: 'abort-incomplete-uploads', Status: 'Enabled', Filter: {Prefix: ''}, AbortIncompleteMultipartUpload: {DaysAfterInitiation: 1}})
    expect(rules[1]).not.toHaveProperty('Expiration')
  })

  it('the function: Node 22 on x86_64, 10240 MB by default, 15 minutes, 10 GB of /tmp, reserved concurrency as asked', () => {
    expect(resources.function).toMatchObject({
      FunctionName: 'engine-render',
      Runtime: 'nodejs22.x',
      Architectures: ['x86_64'],
      MemorySize: 10240,
      Timeout: 900,
      EphemeralStorage: {Size: 10240},
      ReservedConcurrentExecutions: 64,
    })
    // The bundle's handler.mjs (engine lambda bundle), export `handler`.
    expect(HANDLER).toBe('handler.handler')
    expect(stackResources({region: 'eu-west-1', accountId: '123456789012'}).function.ReservedConcurrentExecutions).toBeUndefined()
    expect(stackResources({region: 'eu-west-1', accountId: '123456789012', memoryMb: 4096}).function.MemorySize).toBe(4096)
    expect(() => stackResources({region: 'eu-west-1', accountId: '1', memoryMb: 20000})).toThrow(/--memory: 20000 MB is outside 2048-10240/)
  })

  it('the function role reaches only its bucket and its own logs', () => {
    const role = resources.functionRole
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([{Effect: 'Allow', Principal: {Service: 'lambda.amazonaws.com'}, Action: ['sts:AssumeRole']}])
    expect(actions(role.PolicyDocument).sort()).toEqual(
      ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents', 's3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject'].sort(),
    )
    for (const resource of resourcesOf(role.PolicyDocument)) {
      expect(resource === `arn:aws:s3:::${BUCKET}` || resource === `arn:aws:s3:::${BUCKET}/*` || resource.startsWith('arn:aws:logs:eu-west-1:123456789012:log-group:/aws/lambda/engine-render')).toBe(true)
    }
  })

  it('the workflows\' role may only invoke the function, run this stack\'s renders and batches, and read and write batch rows (plus log delivery)', () => {
    const role = resources.stateMachineRole
    expect(role.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({Service: 'states.amazonaws.com'})
    const bySid = Object.fromEntries(role.PolicyDocument.Statement.map((statement) => [statement.Sid, statement]))
    expect(bySid.InvokeRenderFunction).toMatchObject({Action: ['lambda:InvokeFunction'], Resource: [FUNCTION_ARN, `${FUNCTION_ARN}:*`]})
    const machine = 'arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render'
    expect(bySid.BatchRuns).toMatchObject({Action: ['states:StartExecution'], Resource: [machine, `${machine}-batch`]})
    expect(bySid.BatchFollowsRuns.Resource).toEqual(['arn:aws:states:eu-west-1:123456789012:execution:engine-render:*', 'arn:aws:states:eu-west-1:123456789012:execution:engine-render-batch:*'])
    expect(bySid.BatchWaitsForRenders.Resource).toBe('arn:aws:events:eu-west-1:123456789012:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule')
    expect(bySid.BatchRows).toMatchObject({Action: ['s3:GetObject', 's3:PutObject'], Resource: `arn:aws:s3:::${BUCKET}/batches/*`})
    expect(bySid.LogDelivery.Action.every((action: string) => action.startsWith('logs:'))).toBe(true)
    expect(Object.keys(bySid).sort()).toEqual(['BatchFollowsRuns', 'BatchMapRuns', 'BatchRows', 'BatchRuns', 'BatchWaitsForRenders', 'InvokeRenderFunction', 'LogDelivery'])
  })

  it('a batch workflow beside the render workflow, naming it and the function', () => {
    expect(resources.batchStateMachine).toMatchObject({name: 'engine-render-batch', arn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render-batch', type: 'STANDARD'})
    const text = JSON.stringify(resources.batchStateMachine.definition)
    expect(text).toContain('"StateMachineArn":"arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render"')
    expect(text).toContain(`"Resource":"${FUNCTION_ARN}"`)
  })

  // Plan, RenderChunk, Assemble and the failure path's NotifyFailure, all the same function.
  it('a standard workflow running the render definition against the function', () => {
    expect(resources.stateMachine.type).toBe('STANDARD')
    expect(resources.stateMachine.arn).toBe('arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render')
    expect(JSON.stringify(resources.stateMachine.definition).match(/"Resource":"([^"]+)"/g)).toEqual(Array(4).fill(`"Resource":"${FUNCTION_ARN}"`))
  })

  it('alarms for runaway invocations, function errors and failed executions', () => {
    expect(resources.alarms.map((alarm) => [alarm.Namespace, alarm.MetricName, alarm.Period])).toEqual([
      ['AWS/Lambda', 'Invocations', 3600],
      ['AWS/Lambda', 'Errors', 300],
      ['AWS/States', 'ExecutionsFailed', 300],
    ])
    expect(resources.alarms[2].Dimensions).toEqual([{Name: 'StateMachineArn', Value: resources.stateMachine.arn}])
  })

  it('outputs what callers export', () => {
    expect(resources.outputs).toEqual({
      RenderBucketName: BUCKET,
      RenderStateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render',
      BatchStateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render-batch',
    })
  })

  it('deploy --dry-run prints the same resources and creates nothing', async () => {
    const result = await runCli(['lambda', 'deploy', '--dry-run', '--region', 'eu-west-1', '--concurrency', '64', '--memory', '4096'], {env: {ENGINE_AWS_ENDPOINT: 'http://127.0.0.1:9'}})
    expect(result.code, result.stderr).toBe(0)
    const printed = JSON.parse(result.stdout)
    expect(printed.function).toMatchObject({MemorySize: 4096, ReservedConcurrentExecutions: 64})
    expect(printed.outputs.RenderBucketName).toBe('engine-render-<account-id>-eu-west-1')
  })
})
