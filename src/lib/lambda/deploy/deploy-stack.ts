import type {Pluggable} from '@smithy/types'
import {listInstalledPlugins} from '../../config/installed-plugins.js'
import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {PutMetricAlarmCommand, CloudWatchClient} from '@aws-sdk/client-cloudwatch'
import {CreateRoleCommand, GetRoleCommand, IAMClient, PutRolePolicyCommand, UpdateAssumeRolePolicyCommand} from '@aws-sdk/client-iam'
import {
  CreateFunctionCommand,
  DeleteFunctionConcurrencyCommand,
  GetAccountSettingsCommand,
  GetFunctionCommand,
  LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
  waitUntilFunctionActiveV2,
  waitUntilFunctionUpdatedV2,
} from '@aws-sdk/client-lambda'
import {CreateBucketCommand, PutBucketLifecycleConfigurationCommand, PutPublicAccessBlockCommand, type BucketLocationConstraint} from '@aws-sdk/client-s3'
import {CreateStateMachineCommand, DescribeStateMachineCommand, UpdateStateMachineCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {clientConfig, createS3Client, createSfnClient, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {DEFAULT_MAX_PARALLEL_CHUNKS, throttledChunksWarning} from '../chunk-plan.js'
import {buildLambdaBundle, DEFAULT_BUNDLE_NAME} from '../bundle/build-lambda-bundle.js'
import {hashFile} from '../site-files.js'
import {BucketObjects} from '../s3-objects.js'
import {STACK_RECORD_KEY, type StackRecord} from '../stack-record.js'
import {DEFAULT_STACK_NAME, functionRoleName, stackResources, trustPolicy, type PolicyDocument, type RoleDefinition, type StackResources} from './stack-resources.js'
import {makeTempDirectory} from '../../files/temp-directory.js'

export interface DeployStackOptions extends AwsClientOptions {
  name?: string
  bucketName?: string
  memoryMb?: number
  reservedConcurrency?: number
  /** The function bundle (zip); default: built now with `buildLambdaBundle`. */
  codeZip?: string
  onStep?: (message: string) => void
  /** Told when the account cannot run a default render's chunks at once. */
  onWarning?: (warning: {code: string; message: string}) => void
  /** Middleware added to every AWS client deploy uses (request logging; a stand-in for the cloud in tests). */
  plugins?: readonly ClientPlugin[]
}

/** Middleware for any of the AWS clients: each client has its own input and output types. */
type ClientPlugin = Pluggable<any, any>

const WAIT = {maxWaitTime: 300}
/** New IAM roles take a few seconds to become assumable by Lambda and Step Functions. */
const PROPAGATION_RETRIES = 10
const PROPAGATION_DELAY_MS = 3000

/**
 * Creates or updates the stack (idempotent: a second run updates in place). Every setting comes
 * from `stackResources`; this function only sends it, in dependency order: roles, bucket, function,
 * state machine, alarms, and the stack record.
 */
export async function deployStack(options: DeployStackOptions): Promise<StackResources> {
  const step = options.onStep ?? (() => {})
  const config = clientConfig(options)
  const withPlugins = <C extends {middlewareStack: {use(plugin: ClientPlugin): void}}>(client: C): C => {
    for (const plugin of options.plugins ?? []) client.middlewareStack.use(plugin)
    return client
  }
  const iam = withPlugins(new IAMClient(config))
  const lambda = withPlugins(new LambdaClient(config))
  try {
    const region = await lambda.config.region()
    const name = options.name ?? DEFAULT_STACK_NAME
    // The role's ARN tells the account, which names the bucket and every other ARN.
    const functionRoleArn = await ensureRole(iam, functionRoleName(name), trustPolicy('lambda.amazonaws.com'))
    const accountId = functionRoleArn.split(':')[4]
    const resources = stackResources({
      region,
      accountId,
      name,
      bucketName: options.bucketName,
      memoryMb: options.memoryMb,
      reservedConcurrency: options.reservedConcurrency,
    })
    step(`roles ${resources.functionRole.RoleName}, ${resources.stateMachineRole.RoleName}`)
    await iam.send(new PutRolePolicyCommand(policyOf(resources.functionRole)))
    const stateMachineRoleArn = await ensureRole(iam, resources.stateMachineRole.RoleName, resources.stateMachineRole.AssumeRolePolicyDocument)
    await iam.send(new PutRolePolicyCommand(policyOf(resources.stateMachineRole)))

    step(`bucket ${resources.bucket.Bucket}`)
    const s3 = withPlugins(createS3Client(options))
    await s3
      .send(
        new CreateBucketCommand({
          Bucket: resources.bucket.Bucket,
          ...(region !== 'us-east-1' && {CreateBucketConfiguration: {LocationConstraint: region as BucketLocationConstraint}}),
        }),
      )
      .catch((error: Error) => {
        if (error.name !== 'BucketAlreadyOwnedByYou') throw error
      })
    await s3.send(new PutPublicAccessBlockCommand({Bucket: resources.bucket.Bucket, PublicAccessBlockConfiguration: resources.bucket.PublicAccessBlockConfiguration}))
    await s3.send(new PutBucketLifecycleConfigurationCommand({Bucket: resources.bucket.Bucket, LifecycleConfiguration: resources.bucket.LifecycleConfiguration}))
    const bucket = new BucketObjects(s3, resources.bucket.Bucket)

    const code = await functionCode(bucket, options.codeZip, step)
    step(`function ${resources.function.FunctionName} (${resources.function.MemorySize} MB)`)
    await ensureFunction(lambda, resources, functionRoleArn, code)

    const sfn = withPlugins(createSfnClient(options))
    // The render workflow first: the batch workflow names it.
    for (const machine of [resources.stateMachine, resources.batchStateMachine]) {
      step(`state machine ${machine.name}`)
      await ensureStateMachine(sfn, machine, stateMachineRoleArn)
    }

    step(`alarms ${resources.alarms.map((alarm) => alarm.AlarmName).join(', ')}`)
    const cloudwatch = withPlugins(new CloudWatchClient(config))
    for (const alarm of resources.alarms) await cloudwatch.send(new PutMetricAlarmCommand(alarm))

    const unreservedConcurrency = await readUnreservedConcurrency(lambda)
    const limits = {reservedConcurrency: resources.function.ReservedConcurrentExecutions, unreservedConcurrency}
    const warning = throttledChunksWarning(DEFAULT_MAX_PARALLEL_CHUNKS, limits)
    if (warning) options.onWarning?.({code: warning.code, message: `renders with the default --max-parallel-chunks ${DEFAULT_MAX_PARALLEL_CHUNKS}: ${warning.message}`})

    const record: StackRecord = {
      functionName: resources.function.FunctionName,
      stateMachineArn: resources.stateMachine.arn,
      region,
      memoryMb: resources.function.MemorySize,
      ...limits,
      deployedAt: new Date().toISOString(),
      kind: 'aws',
      formats: code.formats,
    }
    await bucket.putJson(STACK_RECORD_KEY, record)
    return resources
  } catch (error) {
    throw awsFailure(error, 'deploying the serverless stack', {bucketName: options.bucketName, endpoint: options.endpoint})
  }
}

async function ensureStateMachine(sfn: SFNClient, machine: StackResources['stateMachine'], roleArn: string): Promise<void> {
  const definition = JSON.stringify(machine.definition)
  const exists = await sfn.send(new DescribeStateMachineCommand({stateMachineArn: machine.arn})).then(
    () => true,
    (error: Error) => {
      if (error.name === 'StateMachineDoesNotExist') return false
      throw error
    },
  )
  if (exists) await sfn.send(new UpdateStateMachineCommand({stateMachineArn: machine.arn, definition, roleArn}))
  else await afterPropagation(() => sfn.send(new CreateStateMachineCommand({name: machine.name, type: 'STANDARD', definition, roleArn})))
}

/**
 * The account's pool for functions without reserved concurrency (10 on a new account), recorded so
 * that each render can warn before its chunks are throttled. Only informs warnings: a deployer
 * without lambda:GetAccountSettings still deploys.
 */
async function readUnreservedConcurrency(lambda: LambdaClient): Promise<number | undefined> {
  const settings = await lambda.send(new GetAccountSettingsCommand({})).catch(() => undefined)
  return settings?.AccountLimit?.UnreservedConcurrentExecutions
}

async function ensureRole(iam: IAMClient, roleName: string, trustDocument: PolicyDocument): Promise<string> {
  const trust = JSON.stringify(trustDocument)
  try {
    const existing = await iam.send(new GetRoleCommand({RoleName: roleName}))
    await iam.send(new UpdateAssumeRolePolicyCommand({RoleName: roleName, PolicyDocument: trust}))
    return existing.Role!.Arn!
  } catch (error) {
    if ((error as Error).name !== 'NoSuchEntity' && (error as Error).name !== 'NoSuchEntityException') throw error
    const created = await iam.send(new CreateRoleCommand({RoleName: roleName, AssumeRolePolicyDocument: trust, Description: 'engine serverless rendering'}))
    return created.Role!.Arn!
  }
}

function policyOf(role: RoleDefinition) {
  return {RoleName: role.RoleName, PolicyName: role.PolicyName, PolicyDocument: JSON.stringify(role.PolicyDocument)}
}

interface FunctionCode {
  S3Bucket: string
  S3Key: string
  /** Base64 sha256 of the zip, as Lambda reports a function's CodeSha256. */
  codeSha256: string
  /** What the bundle renders, when this deploy built it (a --code zip is taken as it is). */
  formats?: string[]
}

async function ensureFunction(lambda: LambdaClient, resources: StackResources, roleArn: string, code: FunctionCode): Promise<void> {
  const fn = resources.function
  const settings = {
    FunctionName: fn.FunctionName,
    Role: roleArn,
    Runtime: fn.Runtime,
    Handler: fn.Handler,
    MemorySize: fn.MemorySize,
    Timeout: fn.Timeout,
    EphemeralStorage: fn.EphemeralStorage,
    Environment: fn.Environment,
  }
  const location = {S3Bucket: code.S3Bucket, S3Key: code.S3Key}
  const existing = await lambda.send(new GetFunctionCommand({FunctionName: fn.FunctionName})).catch((error: Error) => {
    if (error.name === 'ResourceNotFoundException') return undefined
    throw error
  })
  const waitFor = {client: lambda, ...WAIT}
  if (existing) {
    // The same zip is not sent again: Lambda would only replace the code with itself.
    if (existing.Configuration?.CodeSha256 !== code.codeSha256) {
      await lambda.send(new UpdateFunctionCodeCommand({FunctionName: fn.FunctionName, ...location, Architectures: fn.Architectures}))
      await waitUntilFunctionUpdatedV2(waitFor, {FunctionName: fn.FunctionName})
    }
    await lambda.send(new UpdateFunctionConfigurationCommand(settings))
    await waitUntilFunctionUpdatedV2(waitFor, {FunctionName: fn.FunctionName})
  } else {
    await afterPropagation(() => lambda.send(new CreateFunctionCommand({...settings, Architectures: fn.Architectures, Code: location})))
    await waitUntilFunctionActiveV2(waitFor, {FunctionName: fn.FunctionName})
  }
  if (fn.ReservedConcurrentExecutions === undefined) await lambda.send(new DeleteFunctionConcurrencyCommand({FunctionName: fn.FunctionName}))
  else await lambda.send(new PutFunctionConcurrencyCommand({FunctionName: fn.FunctionName, ReservedConcurrentExecutions: fn.ReservedConcurrentExecutions}))
}

/**
 * The given zip, or one built now. Bundles are larger than a direct upload allows (50 MB): they go
 * through the bucket under their content hash, so an unchanged bundle is not uploaded again.
 */
async function functionCode(bucket: BucketObjects, codeZip: string | undefined, step: (message: string) => void): Promise<FunctionCode> {
  const workDir = codeZip ? undefined : await makeTempDirectory('deploy')
  try {
    let zipPath = codeZip
    let formats: string[] | undefined
    if (!zipPath) {
      step('bundle (engine lambda bundle)')
      const bundle = await buildLambdaBundle({output: join(workDir!, DEFAULT_BUNDLE_NAME), plugins: await listInstalledPlugins()})
      zipPath = bundle.path
      formats = bundle.formats
    }
    const digest = (await hashFile(zipPath)).sha256
    const key = `deploy/function-${digest.slice(0, 16)}.zip`
    if (await bucket.exists(key)) step(`code ${key} (already uploaded)`)
    else {
      step(`code ${key}`)
      await bucket.uploadFile(key, zipPath, 'application/zip')
    }
    return {S3Bucket: bucket.bucketName, S3Key: key, codeSha256: Buffer.from(digest, 'hex').toString('base64'), formats}
  } finally {
    if (workDir) await rm(workDir, {recursive: true, force: true})
  }
}

async function afterPropagation<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      const message = (error as Error).message
      const propagating = /cannot be assumed|not authorized to assume|Neither the global service principal|AccessDenied/i.test(message)
      if (!propagating || attempt >= PROPAGATION_RETRIES) throw error
      await new Promise((resolve) => setTimeout(resolve, PROPAGATION_DELAY_MS))
    }
  }
}
