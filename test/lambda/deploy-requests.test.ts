import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Pluggable} from '@smithy/types'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {deployStack} from '../../src/lib/lambda/deploy/deploy-stack.js'

const ACCOUNT = '123456789012'

interface Call {
  command: string
  input: Record<string, unknown>
  /** The HTTP request the SDK serialised (method and path), proof that the input has the service's shape. */
  request: {method: string; path: string}
}

function awsError(name: string): Error {
  const error = new Error(`${name} (stand-in)`)
  error.name = name
  return error
}

/**
 * The AWS cloud for one fresh account, as middleware after serialisation: every request deploy
 * sends is built by the real SDK (so its shape is checked) and answered here, before signing and
 * sending. Nothing exists yet: roles, the function and the state machine are created.
 */
function standInCloud(calls: Call[]): Pluggable<any, any> {
  const answer = (command: string, input: Record<string, unknown>): Record<string, unknown> => {
    switch (command) {
      case 'GetRoleCommand':
        throw awsError('NoSuchEntityException')
      case 'CreateRoleCommand':
        return {Role: {Arn: `arn:aws:iam::${ACCOUNT}:role/${input.RoleName as string}`, RoleName: input.RoleName}}
      case 'GetFunctionCommand':
        // The first look finds nothing; the waiters after create find it active.
        if (!calls.some((call) => call.command === 'CreateFunctionCommand')) throw awsError('ResourceNotFoundException')
        return {Configuration: {State: 'Active', LastUpdateStatus: 'Successful'}}
      case 'HeadObjectCommand':
        throw awsError('NotFound')
      case 'DescribeStateMachineCommand':
        throw awsError('StateMachineDoesNotExist')
      case 'GetAccountSettingsCommand':
        // A new account: 10 functions at once.
        return {AccountLimit: {ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10}}
      case 'CreateStateMachineCommand':
        return {stateMachineArn: `arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:engine-render`}
      default:
        return {}
    }
  }
  return {
    applyToStack(stack) {
      stack.add(
        (_next, context) => async (args) => {
          const request = args.request as {method: string; path: string}
          calls.push({command: context.commandName as string, input: args.input as Record<string, unknown>, request: {method: request.method, path: request.path}})
          return {output: {$metadata: {httpStatusCode: 200}, ...answer(context.commandName as string, args.input as Record<string, unknown>)}, response: {}}
        },
        {step: 'build', priority: 'low', name: 'standInCloud'},
      )
    },
  }
}

describe('engine lambda deploy: every AWS request, as the SDK builds it', () => {
  let dir: string
  let zip: string
  // The SDK resolves an identity before the requests reach the stand-in; any key will do.
  let restoreEnv: (() => void) | undefined
  beforeAll(async () => {
    restoreEnv = overrideEnv({AWS_ACCESS_KEY_ID: 'AKIASTANDIN', AWS_SECRET_ACCESS_KEY: 'stand-in-secret'})
    dir = await mkdtemp(join(tmpdir(), 'engine-deploy-requests-'))
    zip = join(dir, 'engine-lambda.zip')
    await writeFile(zip, 'PK stand-in bundle')
  })
  afterAll(async () => {
    restoreEnv?.()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('creates roles, bucket, code, function, state machine, alarms and the stack record, in that order', async () => {
    const calls: Call[] = []
    const warnings: {code: string; message: string}[] = []
    await deployStack({region: 'eu-west-1', codeZip: zip, memoryMb: 4096, reservedConcurrency: 8, plugins: [standInCloud(calls)], env: {}, onWarning: (w) => warnings.push(w)})
    const sequence = calls.map((call) => call.command.replace(/Command$/, ''))
    expect(sequence.slice(0, 8)).toEqual(['GetRole', 'CreateRole', 'PutRolePolicy', 'GetRole', 'CreateRole', 'PutRolePolicy', 'CreateBucket', 'PutPublicAccessBlock'])
    for (const later of ['PutBucketLifecycleConfiguration', 'HeadObject', 'PutObject', 'GetFunction', 'CreateFunction', 'PutFunctionConcurrency', 'DescribeStateMachine', 'CreateStateMachine', 'PutMetricAlarm']) {
      expect(sequence, later).toContain(later)
    }
    expect(sequence.indexOf('CreateFunction')).toBeLessThan(sequence.indexOf('CreateStateMachine'))

    const bucket = `engine-render-${ACCOUNT}-eu-west-1`
    const create = calls.find((call) => call.command === 'CreateFunctionCommand')!
    expect(create.input).toMatchObject({
      FunctionName: 'engine-render',
      Runtime: 'nodejs22.x',
      Handler: 'handler.handler',
      MemorySize: 4096,
      Timeout: 900,
      Role: `arn:aws:iam::${ACCOUNT}:role/engine-render-function`,
      Code: {S3Bucket: bucket, S3Key: expect.stringMatching(/^deploy\/function-[0-9a-f]{16}\.zip$/)},
    })
    expect(create.request).toEqual({method: 'POST', path: '/2015-03-31/functions'})
    expect(calls.find((call) => call.command === 'PutFunctionConcurrencyCommand')?.input).toEqual({FunctionName: 'engine-render', ReservedConcurrentExecutions: 8})

    const machine = calls.find((call) => call.command === 'CreateStateMachineCommand')!
    const definition = JSON.parse(machine.input.definition as string) as {StartAt: string; States: Record<string, unknown>}
    expect(Object.keys(definition.States)).toEqual(expect.arrayContaining([definition.StartAt, 'RenderChunks', 'Assemble']))
    expect(machine.input.roleArn).toBe(`arn:aws:iam::${ACCOUNT}:role/engine-render-state-machine`)

    // Every role policy is IAM JSON naming ARNs, but for the log-delivery actions, which AWS allows only on "*".
    for (const put of calls.filter((call) => call.command === 'PutRolePolicyCommand')) {
      const document = JSON.parse(put.input.PolicyDocument as string) as {Version: string; Statement: {Action: string | string[]; Resource: string | string[]}[]}
      expect(document.Version).toBe('2012-10-17')
      for (const statement of document.Statement) {
        for (const resource of [statement.Resource].flat()) {
          if (resource === '*') expect([statement.Action].flat().every((action) => action.startsWith('logs:'))).toBe(true)
          else expect(resource).toMatch(/^arn:aws:/)
        }
      }
    }
    // The stack record is the last object written, and says what the function renders.
    const record = calls.filter((call) => call.command === 'PutObjectCommand').at(-1)!
    expect(record.input.Key).toBe('engine-stack.json')
    expect(JSON.parse(String(record.input.Body))).toMatchObject({functionName: 'engine-render', memoryMb: 4096, reservedConcurrency: 8, unreservedConcurrency: 10, kind: 'aws'})
    // 8 reserved against the 16 chunks a default render runs at once.
    expect(warnings).toEqual([{code: 'chunks-throttled', message: expect.stringMatching(/default --max-parallel-chunks 16: 16 chunks run at once but the function's reserved concurrency is 8/)}])
  })

  it('without reserved concurrency, the pool of a new account (10) is recorded and warned about; a deployer who may not read it still deploys', async () => {
    const calls: Call[] = []
    const warnings: {code: string; message: string}[] = []
    await deployStack({region: 'eu-west-1', codeZip: zip, plugins: [standInCloud(calls)], env: {}, onWarning: (w) => warnings.push(w)})
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/the account runs at most 10 functions at once .*"Concurrent executions" quota/)])
    const stackRecord = (list: Call[]) => JSON.parse(String(list.filter((call) => call.command === 'PutObjectCommand').at(-1)!.input.Body)) as Record<string, unknown>
    expect(stackRecord(calls)).toMatchObject({unreservedConcurrency: 10})

    const denied: Call[] = []
    const cloud = standInCloud(denied)
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
    const quiet: unknown[] = []
    await deployStack({region: 'eu-west-1', codeZip: zip, plugins: [refuseAccountSettings, cloud], env: {}, onWarning: (w) => quiet.push(w)})
    expect(quiet).toEqual([])
    expect(stackRecord(denied)).not.toHaveProperty('unreservedConcurrency')
  })
})
