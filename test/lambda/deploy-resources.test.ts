import {describe, expect, it} from 'vitest'
import {HANDLER, stackResources, type PolicyDocument} from '../../packages/lambda/src/lib/lambda/deploy/stack-resources.js'
import {runCli} from '../support/run-cli.js'

const resources = stackResources({region: 'eu-west-1', accountId: '123456789012', reservedConcurrency: 64})
const BUCKET = 'engine-render-123456789012-eu-west-1'
const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:engine-render'

const actions = (policy: PolicyDocument) => policy.Statement.flatMap((statement) => statement.Action)
const resourcesOf = (policy: PolicyDocument) => policy.Statement.flatMap((statement) => [statement.Resource ?? []].flat())

describe('what `engine lambda deploy` creates', () => {
  it('a private bucket whose render scratch expires, whose unfinished uploads are aborted and whose --delete-after outputs expire, and nothing else', () => {
    expect(resources.bucket.Bucket).toBe(BUCKET)
    expect(resources.bucket.PublicAccessBlockConfiguration).toEqual({BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true})
    const rules = resources.bucket.LifecycleConfiguration.Rules
    // Then one rule per --delete-after value (test/lambda/lambda-output-settings.test.ts).
    expect(rules.map((rule) => rule.ID)).toEqual(['expire-render-scratch', 'abort-incomplete-uploads', 'engine-delete-after-1d', 'engine-delete-after-7d', 'engine-delete-after-30d'])
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

  it('the function role reaches only its bucket (not the deployed code or the stack record) and writes only its own log group', () => {
    const role = resources.functionRole
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([{Effect: 'Allow', Principal: {Service: 'lambda.amazonaws.com'}, Action: ['sts:AssumeRole']}])
    const allowed = role.PolicyDocument.Statement.filter((statement) => statement.Effect === 'Allow')
    expect(allowed.flatMap((statement) => statement.Action).sort()).toEqual(
      ['logs:CreateLogStream', 'logs:PutLogEvents', 's3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject', 's3:PutObjectTagging'].sort(),
    )
    for (const resource of resourcesOf(role.PolicyDocument)) {
      expect(resource === `arn:aws:s3:::${BUCKET}` || resource.startsWith(`arn:aws:s3:::${BUCKET}/`) || resource === 'arn:aws:logs:eu-west-1:123456789012:log-group:/aws/lambda/engine-render:*').toBe(true)
    }
    expect(role.PolicyDocument.Statement.find((statement) => statement.Effect === 'Deny')).toMatchObject({
      Action: ['s3:PutObject', 's3:DeleteObject'],
      Resource: [`arn:aws:s3:::${BUCKET}/deploy/*`, `arn:aws:s3:::${BUCKET}/engine-stack.json`],
    })
    // Kept 14 days unless deploy --log-retention says otherwise (the log group is deploy's, not the function's).
    expect(resources.logGroup).toEqual({logGroupName: '/aws/lambda/engine-render', retentionInDays: 14})
    expect(stackResources({region: 'eu-west-1', accountId: '123456789012', logRetentionDays: 90}).logGroup.retentionInDays).toBe(90)
    expect(() => stackResources({region: 'eu-west-1', accountId: '123456789012', logRetentionDays: 15})).toThrow(/--log-retention: 15 days is not a retention CloudWatch Logs offers/)
  })

  it('the workflows\' role may only invoke the function, run this stack\'s renders and batches, and read and write batch rows: no log delivery on "*"', () => {
    const role = resources.stateMachineRole
    expect(role.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({Service: 'states.amazonaws.com'})
    const bySid = Object.fromEntries(role.PolicyDocument.Statement.map((statement) => [statement.Sid, statement]))
    expect(bySid.InvokeRenderFunction).toMatchObject({Action: ['lambda:InvokeFunction'], Resource: [FUNCTION_ARN, `${FUNCTION_ARN}:*`]})
    const machine = 'arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render'
    // Each workflow's Distributed Map starts children of its own workflow and follows them (AWS's
    // least privilege for Distributed Map: StartExecution on itself, Describe/StopExecution on `<machine>/*`).
    expect(bySid.ChildRuns).toMatchObject({Action: ['states:StartExecution'], Resource: [machine, `${machine}-batch`]})
    const executions = 'arn:aws:states:eu-west-1:123456789012:execution:engine-render'
    expect(bySid.FollowChildRuns.Resource).toEqual([`${executions}:*`, `${executions}/*`, `${executions}-batch:*`, `${executions}-batch/*`])
    expect(bySid.MapRuns).toMatchObject({
      Action: ['states:DescribeMapRun', 'states:UpdateMapRun'],
      Resource: ['arn:aws:states:eu-west-1:123456789012:mapRun:engine-render/*', 'arn:aws:states:eu-west-1:123456789012:mapRun:engine-render-batch/*'],
    })
    expect(bySid.BatchWaitsForRenders.Resource).toBe('arn:aws:events:eu-west-1:123456789012:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule')
    expect(bySid.BatchRows).toMatchObject({Action: ['s3:GetObject', 's3:PutObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'], Resource: `arn:aws:s3:::${BUCKET}/batches/*`})
    expect(Object.keys(bySid).sort()).toEqual(['BatchRows', 'BatchWaitsForRenders', 'ChildRuns', 'FollowChildRuns', 'InvokeRenderFunction', 'MapRuns'])
    expect(resourcesOf(role.PolicyDocument)).not.toContain('*')
  })

  it('a batch workflow beside the render workflow, naming it and the function', () => {
    expect(resources.batchStateMachine).toMatchObject({name: 'engine-render-batch', arn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render-batch', type: 'STANDARD'})
    const text = JSON.stringify(resources.batchStateMachine.definition)
    expect(text).toContain('"StateMachineArn":"arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render"')
    expect(text).toContain(`"Resource":"${FUNCTION_ARN}"`)
  })

  // Plan, RenderChunk (in the inline Map and in the Distributed Map's children), Assemble and the failure path's NotifyFailure, all the same function.
  it('a standard workflow running the render definition against the function', () => {
    expect(resources.stateMachine.type).toBe('STANDARD')
    expect(resources.stateMachine.arn).toBe('arn:aws:states:eu-west-1:123456789012:stateMachine:engine-render')
    expect(JSON.stringify(resources.stateMachine.definition).match(/"Resource":"([^"]+)"/g)).toEqual(Array(5).fill(`"Resource":"${FUNCTION_ARN}"`))
  })

  it('alarms: runaway invocations, function faults apart from composition errors, failed and timed-out executions; an SNS topic told when given', () => {
    expect(resources.alarms.map((alarm) => alarm.AlarmName)).toEqual([
      'engine-render-invocations-per-hour',
      'engine-render-function-faults',
      'engine-render-composition-errors',
      'engine-render-failed-executions',
      'engine-render-timed-out-executions',
      'engine-render-failed-batches',
    ])
    const [, faults, composition] = resources.alarms
    // Lambda's Errors less the invocations that failed on their composition or stopped with their render.
    expect(faults.Metrics?.map((metric) => metric.MetricStat?.Metric?.MetricName ?? metric.Expression)).toEqual(['Errors', 'CompositionErrors', 'StoppedInvocations', 'errors - FILL(composition, 0) - FILL(stopped, 0)'])
    expect(composition).toMatchObject({Namespace: 'engine', MetricName: 'CompositionErrors', Dimensions: [{Name: 'FunctionName', Value: 'engine-render'}]})
    expect(resources.alarms[3].Dimensions).toEqual([{Name: 'StateMachineArn', Value: resources.stateMachine.arn}])
    expect(resources.alarms.every((alarm) => alarm.AlarmActions === undefined)).toBe(true)
    const topic = 'arn:aws:sns:eu-west-1:123456789012:ops'
    const told = stackResources({region: 'eu-west-1', accountId: '123456789012', alarmTopicArn: topic}).alarms
    expect(told.every((alarm) => alarm.AlarmActions?.[0] === topic && alarm.OKActions?.[0] === topic)).toBe(true)
  })

  it('with a published version, every task of both workflows invokes that version, not $LATEST', () => {
    const versioned = stackResources({region: 'eu-west-1', accountId: '123456789012', functionVersion: '7'})
    for (const machine of [versioned.stateMachine, versioned.batchStateMachine]) {
      const invoked = [...JSON.stringify(machine.definition).matchAll(/"(arn:aws:lambda:[^"]+)"/g)].map((match) => match[1])
      expect(invoked.length).toBeGreaterThan(0)
      expect(new Set(invoked)).toEqual(new Set([`${FUNCTION_ARN}:7`]))
    }
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
    expect(printed.alias).toEqual({Name: 'live', FunctionVersion: '<published-version>'})
  })
})
