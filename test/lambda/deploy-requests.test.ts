import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Pluggable} from '@smithy/types'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {deployStack} from '../../packages/lambda/src/lib/lambda/deploy/deploy-stack.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {awsError, StandInCloud, writeBundle, type AccountShape} from './stand-in-cloud.js'

const ACCOUNT = '123456789012'
const BUCKET = `engine-render-${ACCOUNT}-eu-west-1`
const CREATING = /^(Create|Put|Update|Publish|Delete)/

describe('engine lambda deploy against a stand-in AWS account', () => {
  let dir: string
  let zip: string
  let nextZip: string
  const codeHashes = new Map<string, string>()
  const account = (shape: Partial<AccountShape>): StandInCloud =>
    new StandInCloud({accountId: ACCOUNT, region: 'eu-west-1', concurrency: 1000, memoryCapMb: 10240, codeHashes, ...shape})
  const deploy = (cloud: StandInCloud, options: Parameters<typeof deployStack>[0] = {}) => {
    const notices: {code: string; message: string}[] = []
    const result = deployStack({region: 'eu-west-1', codeZip: zip, plugins: [cloud.plugin()], env: {}, onWarning: (w) => notices.push(w), ...options})
    return {result, notices}
  }
  const stackRecord = (cloud: StandInCloud) => JSON.parse(String(cloud.calls.filter((call) => call.command === 'PutObjectCommand').at(-1)!.input.Body)) as Record<string, unknown>
  // The SDK resolves an identity before the requests reach the stand-in; any key will do.
  let restoreEnv: (() => void) | undefined
  beforeAll(async () => {
    restoreEnv = overrideEnv({AWS_ACCESS_KEY_ID: 'AKIASTANDIN', AWS_SECRET_ACCESS_KEY: 'stand-in-secret'})
    dir = await mkdtemp(join(tmpdir(), 'engine-deploy-requests-'))
    zip = await writeBundle(join(dir, 'engine-lambda.zip'), 'export const handler = () => 1', codeHashes)
    nextZip = await writeBundle(join(dir, 'engine-lambda-2.zip'), 'export const handler = () => 2', codeHashes)
  })
  afterAll(async () => {
    restoreEnv?.()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('a fresh account (10 concurrent executions, 3,008 MB): reads it first, reserves nothing, takes the memory cap, says both, and deploys', async () => {
    const cloud = account({concurrency: 10, memoryCapMb: 3008})
    // What the README told new users to run.
    const {result, notices} = deploy(cloud, {reservedConcurrency: 20})
    const deployed = await result
    const sequence = cloud.commands
    // The account, the function as it is: read before anything is created.
    expect(sequence.slice(0, 3)).toEqual(['GetCallerIdentity', 'GetAccountSettings', 'GetFunction'])
    expect(sequence).not.toContain('PutFunctionConcurrency')
    expect(deployed).toMatchObject({version: '1', memoryMb: 3008})
    expect(deployed.reservedConcurrency).toBeUndefined()
    expect(deployed.previousVersion).toBeUndefined()
    expect(notices.map((n) => n.code)).toEqual(['concurrency-not-reserved', 'memory-capped', 'chunks-throttled'])
    expect(notices[0].message).toMatch(/--concurrency 20 is not reserved: the account runs 10 functions at once and AWS keeps at least 100 unreserved, so nothing can be reserved/)
    expect(notices[0].message).toMatch(/Service Quotas console > AWS Lambda > Concurrent executions/)
    expect(notices[1].message).toMatch(/at most 3008 MB per function: the function gets 3008 MB instead of 10240/)
    // Created once, at the cap: the refused first try created nothing.
    const creates = cloud.calls.filter((call) => call.command === 'CreateFunctionCommand')
    expect(creates.map((call) => call.input.MemorySize)).toEqual([10240, 3008])
    expect(creates[1].request).toEqual({method: 'POST', path: '/2015-03-31/functions'})
    expect(creates[1].input).toMatchObject({
      FunctionName: 'engine-render',
      Runtime: 'nodejs22.x',
      Handler: 'handler.handler',
      Timeout: 900,
      Architectures: ['x86_64'],
      Role: `arn:aws:iam::${ACCOUNT}:role/engine-render-function`,
      Code: {S3Bucket: BUCKET, S3Key: expect.stringMatching(/^deploy\/function-[0-9a-f]{16}\.zip$/)},
    })
    expect(stackRecord(cloud)).toMatchObject({memoryMb: 3008, functionVersion: '1', unreservedConcurrency: 10, arch: 'x86_64', formats: ['mp4', 'png']})
    expect(stackRecord(cloud)).not.toHaveProperty('reservedConcurrency')
  })

  it('in dependency order; the workflows invoke the published version; logs kept 14 days; alarms; the stack record last', async () => {
    const cloud = account({})
    const {result, notices} = deploy(cloud, {memoryMb: 4096, reservedConcurrency: 64})
    await result
    const sequence = cloud.commands
    const order = ['CreateRole', 'CreateBucket', 'PutObject', 'CreateFunction', 'PublishVersion', 'CreateAlias', 'PutFunctionConcurrency', 'CreateLogGroup', 'PutRetentionPolicy', 'CreateStateMachine', 'PutRule', 'AddPermission', 'PutTargets', 'PutMetricAlarm']
    const at = order.map((command) => sequence.indexOf(command))
    expect(at.every((index) => index >= 0), sequence.join(' ')).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    expect(cloud.calls.find((call) => call.command === 'PutFunctionConcurrencyCommand')?.input).toEqual({FunctionName: 'engine-render', ReservedConcurrentExecutions: 64})
    expect(cloud.calls.find((call) => call.command === 'PutRetentionPolicyCommand')?.input).toEqual({logGroupName: '/aws/lambda/engine-render', retentionInDays: 14})
    const functionArn = `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:engine-render`
    for (const machine of cloud.machines.values()) {
      const resources = [...machine.matchAll(/"(?:Resource|FunctionName)":"(arn:aws:lambda:[^"]+)"/g)].map((match) => match[1])
      expect(resources.length).toBeGreaterThan(0)
      expect(new Set(resources)).toEqual(new Set([`${functionArn}:1`]))
    }
    // The execution-end rule: the render workflow's executions that end FAILED, TIMED_OUT or
    // ABORTED go to the live alias, as an executionEnded event, allowed by a permission for the rule alone.
    const rule = cloud.calls.find((call) => call.command === 'PutRuleCommand')!
    expect(rule.request.method).toBe('POST')
    expect(rule.input).toMatchObject({Name: 'engine-render-execution-ended', State: 'ENABLED'})
    expect(JSON.parse(rule.input.EventPattern as string)).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [`arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:engine-render`]},
    })
    const ruleArn = `arn:aws:events:eu-west-1:${ACCOUNT}:rule/engine-render-execution-ended`
    expect(cloud.calls.find((call) => call.command === 'AddPermissionCommand')?.input).toEqual({
      FunctionName: 'engine-render',
      Qualifier: 'live',
      StatementId: 'engine-execution-end-rule',
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      SourceArn: ruleArn,
    })
    const [target] = cloud.calls.find((call) => call.command === 'PutTargetsCommand')!.input.Targets as {Arn: string; InputTransformer: {InputTemplate: string}}[]
    expect(target.Arn).toBe(`${functionArn}:live`)
    expect(target.InputTransformer.InputTemplate).toMatch(/^\{"action":"executionEnded",/)
    const alarms = cloud.calls.filter((call) => call.command === 'PutMetricAlarmCommand')
    expect(alarms.map((call) => call.input.AlarmName)).toContain('engine-render-composition-errors')
    expect(alarms.every((call) => call.input.AlarmActions === undefined)).toBe(true)
    // Every role policy names ARNs: nothing on "*".
    for (const put of cloud.calls.filter((call) => call.command === 'PutRolePolicyCommand')) {
      const document = JSON.parse(put.input.PolicyDocument as string) as {Statement: {Resource: string | string[]}[]}
      for (const statement of document.Statement) for (const resource of [statement.Resource].flat()) expect(resource).toMatch(/^arn:aws:/)
    }
    expect(sequence.at(-1)).toBe('PutObject')
    expect(stackRecord(cloud)).toMatchObject({functionName: 'engine-render', functionVersion: '1', memoryMb: 4096, reservedConcurrency: 64, kind: 'aws'})
    expect(notices).toEqual([])
  })

  it('a second deploy publishes a new version and moves the alias and the workflows to it; an unchanged one publishes nothing', async () => {
    const cloud = account({})
    await deploy(cloud).result
    const second = await deploy(cloud, {codeZip: nextZip, alarmTopicArn: `arn:aws:sns:eu-west-1:${ACCOUNT}:render-alarms`}).result
    expect(second).toMatchObject({version: '2', previousVersion: '1'})
    expect(cloud.fn?.alias).toBe('2')
    const machine = cloud.machines.get(`arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:engine-render`)!
    expect(machine).toContain(`function:engine-render:2"`)
    expect(machine).not.toContain(`function:engine-render:1"`)
    const alarms = cloud.calls.filter((call) => call.command === 'PutMetricAlarmCommand').slice(-6)
    for (const alarm of alarms) expect(alarm.input).toMatchObject({AlarmActions: [`arn:aws:sns:eu-west-1:${ACCOUNT}:render-alarms`], OKActions: [`arn:aws:sns:eu-west-1:${ACCOUNT}:render-alarms`]})

    const before = cloud.calls.length
    const third = await deploy(cloud, {codeZip: nextZip}).result
    expect(third).toMatchObject({version: '2', previousVersion: '2'})
    const again = cloud.calls.slice(before).map((call) => call.command)
    expect(again).not.toContain('UpdateFunctionCodeCommand')
    expect(again).not.toContain('UpdateAliasCommand')
  })

  it('checks everything it can before creating anything: a bad setting or bundle fails with nothing made', async () => {
    const cases: [Parameters<typeof deployStack>[0], RegExp][] = [
      [{logRetentionDays: 10}, /--log-retention: 10 days is not a retention CloudWatch Logs offers; use one of 1, 3, 5, 7, 14/],
      [{alarmTopicArn: 'my-topic'}, /--alarm-topic: "my-topic" is not an SNS topic ARN/],
      [{name: 'has space'}, /--name: "has space" must be 1-56 letters/],
      [{codeZip: join(dir, 'missing.zip')}, /--code: .*missing\.zip cannot be read as a zip/],
      [{arch: 'arm64'}, /--code: .*engine-lambda\.zip was built for x86_64, not --arch arm64; build it with `engine lambda bundle --arch arm64`/],
    ]
    const notZip = join(dir, 'not-a-bundle.zip')
    await writeFile(notZip, 'PK not a zip')
    cases.push([{codeZip: notZip}, /--code: .*not-a-bundle\.zip cannot be read as a zip/])
    for (const [options, message] of cases) {
      const cloud = account({})
      const error = await deploy(cloud, options).result.then(
        () => undefined,
        (failure: unknown) => failure,
      )
      expect(isEngineError(error) && error.code, JSON.stringify(options)).toBe('INVALID_FLAG')
      expect((error as Error).message).toMatch(message)
      expect((error as Error).message).toMatch(/Nothing was created or changed\.$/)
      expect(cloud.commands.filter((command) => CREATING.test(command))).toEqual([])
    }
  })

  it('a failure halfway says exactly what this deploy created; --memory above the cap is refused, not lowered', async () => {
    const cloud = account({memoryCapMb: 3008})
    const error = (await deploy(cloud, {memoryMb: 10240}).result.catch((failure: unknown) => failure)) as Error & {code: string; details: {created: string[]}}
    expect(error.code).toBe('DEPLOY_FAILED')
    expect(error.message).toMatch(/--memory 10240: this account allows at most 3008 MB per function .* deploy with --memory 3008, or without --memory/)
    expect(error.message).toMatch(
      new RegExp(`This deploy created role engine-render-function, role engine-render-state-machine, bucket ${BUCKET}, s3://${BUCKET}/deploy/function-[0-9a-f]{16}\\.zip\\. Deploy again to finish: it reuses all of it\\.$`),
    )
    expect(cloud.fn).toBeUndefined()
    // Running it again (as told) finishes without creating the roles twice.
    await deploy(cloud, {memoryMb: 3008}).result
    expect(cloud.commands.filter((command) => command === 'CreateRole')).toHaveLength(2)
    expect(cloud.fn).toMatchObject({memoryMb: 3008, alias: '1'})
  })

  it('code replaced in the bucket after upload is caught by its hash: written again, else the deploy fails', async () => {
    const cloud = account({})
    await deploy(cloud).result
    const key = [...cloud.objects].find((object) => object.startsWith('deploy/'))!
    // Someone who could write deploy/* replaced the object; the next deploy of the same bundle finds it there.
    cloud.account.swapped = new Set([key])
    cloud.fn!.codeSha256 = 'stale'
    await deploy(cloud).result
    expect(cloud.fn!.codeSha256).toBe(codeHashes.get(/function-([0-9a-f]{16})/.exec(key)![1]))
    expect(cloud.calls.filter((call) => call.command === 'PutObjectCommand' && call.input.Key === key)).toHaveLength(2)

    // An object that stays replaced (written over again at once) fails the deploy, before any version is published.
    const stubborn = account({})
    await deploy(stubborn).result
    const always: Pluggable<any, any> = {
      applyToStack(stack) {
        stack.add(
          (next, context) => async (args) => {
            const result = await next(args)
            if (context.commandName === 'PutObjectCommand') stubborn.account.swapped = new Set([key])
            return result
          },
          {step: 'initialize', name: 'swapAgain'},
        )
      },
    }
    stubborn.account.swapped = new Set([key])
    stubborn.fn!.codeSha256 = 'stale'
    const publishedBefore = stubborn.fn!.versions.length
    const error = (await deployStack({region: 'eu-west-1', codeZip: zip, plugins: [always, stubborn.plugin()], env: {}}).catch((failure: unknown) => failure)) as Error & {code: string}
    expect(error.code).toBe('DEPLOY_FAILED')
    expect(error.message).toMatch(/the function's code .* is not the bundle deployed .* was changed after it was uploaded/)
    expect(stubborn.fn!.versions).toHaveLength(publishedBefore)
  })

  it('a deployer who may not read the account settings still deploys (the reservation is tried, and a refusal is a notice)', async () => {
    const cloud = account({concurrency: 50})
    const refuseAccountSettings: Pluggable<any, any> = {
      applyToStack(stack) {
        stack.add(
          (next, context) => async (args) => {
            if (context.commandName === 'GetAccountSettingsCommand') throw awsError('AccessDeniedException')
            return next(args)
          },
          {step: 'initialize', name: 'refuseAccountSettings'},
        )
      },
    }
    const notices: {code: string}[] = []
    const deployed = await deployStack({region: 'eu-west-1', codeZip: zip, reservedConcurrency: 20, plugins: [refuseAccountSettings, cloud.plugin()], env: {}, onWarning: (w) => notices.push(w)})
    expect(deployed.reservedConcurrency).toBeUndefined()
    expect(notices.map((notice) => notice.code)).toEqual(['concurrency-not-reserved'])
    expect(stackRecord(cloud)).not.toHaveProperty('unreservedConcurrency')
  })
})
