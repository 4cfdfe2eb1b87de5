import {createHash} from 'node:crypto'
import {readFile} from 'node:fs/promises'
import {PutMetricAlarmCommand, CloudWatchClient} from '@aws-sdk/client-cloudwatch'
import {CreateRoleCommand, GetRoleCommand, IAMClient, PutRolePolicyCommand, UpdateAssumeRolePolicyCommand} from '@aws-sdk/client-iam'
import {
  CreateFunctionCommand,
  DeleteFunctionConcurrencyCommand,
  GetFunctionCommand,
  LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
  waitUntilFunctionActiveV2,
  waitUntilFunctionUpdatedV2,
} from '@aws-sdk/client-lambda'
import {CreateBucketCommand, PutBucketLifecycleConfigurationCommand, PutPublicAccessBlockCommand, type BucketLocationConstraint} from '@aws-sdk/client-s3'
import {CreateStateMachineCommand, DescribeStateMachineCommand, UpdateStateMachineCommand} from '@aws-sdk/client-sfn'
import {EngineError} from '../../errors/engine-error.js'
import {clientConfig, createS3Client, createSfnClient, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {BucketObjects} from '../s3-objects.js'
import {STACK_RECORD_KEY, type StackRecord} from '../stack-record.js'
import {DEFAULT_STACK_NAME, functionRoleName, stackResources, trustPolicy, type PolicyDocument, type RoleDefinition, type StackResources} from './stack-resources.js'

export interface DeployStackOptions extends AwsClientOptions {
  name?: string
  bucketName?: string
  memoryMb?: number
  reservedConcurrency?: number
  /** The function bundle (zip); required the first time, optional on updates (code left as is). */
  codeZip?: string
  onStep?: (message: string) => void
}

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
  const iam = new IAMClient(config)
  const lambda = new LambdaClient(config)
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
    const s3 = createS3Client(options)
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

    step(`function ${resources.function.FunctionName} (${resources.function.MemorySize} MB)`)
    await ensureFunction(lambda, bucket, resources, functionRoleArn, options.codeZip)

    step(`state machine ${resources.stateMachine.name}`)
    const sfn = createSfnClient(options)
    const definition = JSON.stringify(resources.stateMachine.definition)
    const exists = await sfn.send(new DescribeStateMachineCommand({stateMachineArn: resources.stateMachine.arn})).then(
      () => true,
      (error: Error) => {
        if (error.name === 'StateMachineDoesNotExist') return false
        throw error
      },
    )
    if (exists) await sfn.send(new UpdateStateMachineCommand({stateMachineArn: resources.stateMachine.arn, definition, roleArn: stateMachineRoleArn}))
    else await afterPropagation(() => sfn.send(new CreateStateMachineCommand({name: resources.stateMachine.name, type: 'STANDARD', definition, roleArn: stateMachineRoleArn})))

    step(`alarms ${resources.alarms.map((alarm) => alarm.AlarmName).join(', ')}`)
    const cloudwatch = new CloudWatchClient(config)
    for (const alarm of resources.alarms) await cloudwatch.send(new PutMetricAlarmCommand(alarm))

    const record: StackRecord = {
      functionName: resources.function.FunctionName,
      stateMachineArn: resources.stateMachine.arn,
      region,
      memoryMb: resources.function.MemorySize,
      reservedConcurrency: resources.function.ReservedConcurrentExecutions,
      deployedAt: new Date().toISOString(),
      kind: 'aws',
    }
    await bucket.putJson(STACK_RECORD_KEY, record)
    return resources
  } catch (error) {
    throw awsFailure(error, 'deploying the serverless stack', {bucketName: options.bucketName, endpoint: options.endpoint})
  }
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

async function ensureFunction(lambda: LambdaClient, bucket: BucketObjects, resources: StackResources, roleArn: string, codeZip: string | undefined): Promise<void> {
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
  const code = codeZip ? await uploadCode(bucket, codeZip) : undefined
  const exists = await lambda.send(new GetFunctionCommand({FunctionName: fn.FunctionName})).then(
    () => true,
    (error: Error) => {
      if (error.name === 'ResourceNotFoundException') return false
      throw error
    },
  )
  const waitFor = {client: lambda, ...WAIT}
  if (exists) {
    if (code) {
      await lambda.send(new UpdateFunctionCodeCommand({FunctionName: fn.FunctionName, ...code, Architectures: fn.Architectures}))
      await waitUntilFunctionUpdatedV2(waitFor, {FunctionName: fn.FunctionName})
    }
    await lambda.send(new UpdateFunctionConfigurationCommand(settings))
    await waitUntilFunctionUpdatedV2(waitFor, {FunctionName: fn.FunctionName})
  } else {
    if (!code) {
      throw new EngineError(
        'INVALID_FLAG',
        `--code is required to create the function ${fn.FunctionName}: pass a zip of the engine package (package.json, dist/, production node_modules ` +
          `including @sparticuz/chromium) with static ffmpeg and ffprobe binaries at bin/ffmpeg and bin/ffprobe`,
      )
    }
    await afterPropagation(() => lambda.send(new CreateFunctionCommand({...settings, Architectures: fn.Architectures, Code: code})))
    await waitUntilFunctionActiveV2(waitFor, {FunctionName: fn.FunctionName})
  }
  if (fn.ReservedConcurrentExecutions === undefined) await lambda.send(new DeleteFunctionConcurrencyCommand({FunctionName: fn.FunctionName}))
  else await lambda.send(new PutFunctionConcurrencyCommand({FunctionName: fn.FunctionName, ReservedConcurrentExecutions: fn.ReservedConcurrentExecutions}))
}

/** Bundles are larger than a direct upload allows (50 MB): they go through the bucket, content-addressed. */
async function uploadCode(bucket: BucketObjects, zipPath: string): Promise<{S3Bucket: string; S3Key: string}> {
  const digest = createHash('sha256').update(await readFile(zipPath)).digest('hex').slice(0, 16)
  const key = `deploy/function-${digest}.zip`
  if (!(await bucket.exists(key))) await bucket.uploadFile(key, zipPath, 'application/zip')
  return {S3Bucket: bucket.bucketName, S3Key: key}
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
