import {PutMetricAlarmCommand, CloudWatchClient} from '@aws-sdk/client-cloudwatch'
import {CloudWatchLogsClient, CreateLogGroupCommand, PutRetentionPolicyCommand} from '@aws-sdk/client-cloudwatch-logs'
import {CreateRoleCommand, GetRoleCommand, IAMClient, PutRolePolicyCommand, UpdateAssumeRolePolicyCommand} from '@aws-sdk/client-iam'
import {GetAccountSettingsCommand, GetFunctionCommand, LambdaClient, type FunctionConfiguration} from '@aws-sdk/client-lambda'
import {CreateBucketCommand, PutPublicAccessBlockCommand, type BucketLocationConstraint, type S3Client} from '@aws-sdk/client-s3'
import {CreateStateMachineCommand, DescribeStateMachineCommand, UpdateStateMachineCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {GetCallerIdentityCommand, STSClient} from '@aws-sdk/client-sts'
import {EventBridgeClient} from '@aws-sdk/client-eventbridge'
import {clientConfig, createS3Client, createSfnClient, withPlugins, type AwsClientOptions, type ClientPlugin} from '../aws-clients.js'
import {DEFAULT_MAX_PARALLEL_CHUNKS, throttledChunksWarning} from '../chunk-plan.js'
import {BucketObjects} from '../s3-objects.js'
import {deleteAfterRules} from '../output-settings.js'
import {STACK_RECORD_KEY, type DeleteAfterRulesState, type StackRecord} from '../stack-record.js'
import {planReservation, type AccountConcurrency, type Notice} from './account-limits.js'
import {describeRules, putOurLifecycleRules, tryOurLifecycleRules} from './bucket-lifecycle.js'
import {prepareCode, uploadCode} from './deploy-code.js'
import {deployFunction} from './deploy-function.js'
import {DeployLedger} from './deploy-ledger.js'
import {ensureExecutionEndRule, executionEndRuleName} from './execution-end-rule-deploy.js'
import {DEFAULT_STACK_NAME, stackResources, type Architecture, type RoleDefinition, type StackResources} from './stack-resources.js'

export interface DeployStackOptions extends AwsClientOptions {
  name?: string
  bucketName?: string
  /** Other buckets renders may write their output to (`--output-bucket`, repeatable). */
  outputBuckets?: string[]
  /** Default: 10,240 MB, or the account's cap when it allows less (a new account: 3,008 MB). */
  memoryMb?: number
  reservedConcurrency?: number
  arch?: Architecture
  logRetentionDays?: number
  alarmTopicArn?: string
  /** The function bundle (zip); default: built now with `buildLambdaBundle`. */
  codeZip?: string
  onStep?: (message: string) => void
  /** Told what deploy chose for the account (no reservation, less memory) and when renders will be throttled. */
  onWarning?: (warning: Notice) => void
  /** Middleware added to every AWS client deploy uses (request logging; a stand-in for the cloud in tests). */
  plugins?: readonly ClientPlugin[]
}

export interface DeployedStack {
  resources: StackResources
  /** The function version the workflows now invoke, and the one they invoked before this deploy. */
  version: string
  previousVersion?: string
  memoryMb: number
  reservedConcurrency?: number
}


/** New IAM roles take a few seconds to become assumable by Lambda and Step Functions. */
const PROPAGATION_RETRIES = 10
const PROPAGATION_DELAY_MS = 3000

/**
 * Creates or updates the stack (idempotent: a second run updates in place). First, with nothing
 * created: who the account is, its Lambda limits, the function as it is, every setting, and the
 * code (built or checked). Then, in dependency order: roles, bucket, code, function (a version
 * published and the `live` alias moved), its log group, the workflows (naming that version, so
 * executions started before this deploy finish on theirs), alarms, and the stack record. A failure
 * says what this run created and changed (DeployLedger).
 */
export async function deployStack(options: DeployStackOptions): Promise<DeployedStack> {
  const step = options.onStep ?? (() => {})
  const notice = options.onWarning ?? (() => {})
  const config = clientConfig(options)
  const use = withPlugins(options.plugins)
  const iam = use(new IAMClient(config))
  const lambda = use(new LambdaClient(config))
  const ledger = new DeployLedger()
  let prepared: Awaited<ReturnType<typeof prepareCode>> | undefined
  try {
    const region = await lambda.config.region()
    const name = options.name ?? DEFAULT_STACK_NAME
    const arch = options.arch ?? 'x86_64'
    const identity = await use(new STSClient(config)).send(new GetCallerIdentityCommand({}))
    const account = await readAccountConcurrency(lambda)
    const existing = await lambda.send(new GetFunctionCommand({FunctionName: name})).then(
      (found) => ({configuration: found.Configuration!, reserved: found.Concurrency?.ReservedConcurrentExecutions}),
      (error: Error) => {
        if (error.name === 'ResourceNotFoundException') return undefined
        throw error
      },
    )
    const reservation = planReservation(options.reservedConcurrency, account, existing?.reserved)
    const settings = {region, accountId: identity.Account!, name, bucketName: options.bucketName, memoryMb: options.memoryMb, arch, logRetentionDays: options.logRetentionDays, alarmTopicArn: options.alarmTopicArn, outputBuckets: options.outputBuckets}
    // Every setting is checked here, before anything is created.
    let resources = stackResources({...settings, reservedConcurrency: reservation.reserve})
    const outputBuckets = [...new Set(options.outputBuckets ?? [])]
    if (reservation.notice) notice(reservation.notice)
    ledger.at('preparing the code')
    prepared = await prepareCode(options.codeZip, arch, step)
    const code = prepared

    ledger.at('roles')
    step(`roles ${resources.functionRole.RoleName}, ${resources.stateMachineRole.RoleName}`)
    const functionRoleArn = await ensureRole(iam, resources.functionRole, ledger)
    const stateMachineRoleArn = await ensureRole(iam, resources.stateMachineRole, ledger)

    ledger.at('the bucket')
    step(`bucket ${resources.bucket.Bucket}`)
    const s3 = use(createS3Client(options))
    const createdBucket = await s3
      .send(new CreateBucketCommand({Bucket: resources.bucket.Bucket, ...(region !== 'us-east-1' && {CreateBucketConfiguration: {LocationConstraint: region as BucketLocationConstraint}})}))
      .then(
        () => true,
        (error: Error) => {
          if (error.name !== 'BucketAlreadyOwnedByYou') throw error
          return false
        },
      )
    if (createdBucket) ledger.created(`bucket ${resources.bucket.Bucket}`)
    await s3.send(new PutPublicAccessBlockCommand({Bucket: resources.bucket.Bucket, PublicAccessBlockConfiguration: resources.bucket.PublicAccessBlockConfiguration}))
    await putOurLifecycleRules(s3, resources.bucket.Bucket, resources.bucket.LifecycleConfiguration.Rules)
    ledger.at('the output buckets\' lifecycle rules')
    const outputBucketRules = await outputBucketLifecycles(s3, outputBuckets, step, notice)
    const bucket = new BucketObjects(s3, resources.bucket.Bucket)

    ledger.at('uploading the code')
    const location = await uploadCode(bucket, code, step)
    if (location.uploaded) ledger.created(`s3://${location.S3Bucket}/${location.S3Key}`)

    ledger.at('the function')
    step(`function ${resources.function.FunctionName} (${resources.function.MemorySize} MB, ${arch})`)
    const deployed = await deployFunction({
      lambda,
      resources,
      roleArn: functionRoleArn,
      code,
      location: {S3Bucket: location.S3Bucket, S3Key: location.S3Key},
      existing: existing?.configuration as FunctionConfiguration | undefined,
      memoryExplicit: options.memoryMb !== undefined,
      reserve: reservation.reserve,
      ledger,
      onNotice: notice,
      reupload: async () => {
        await uploadCode(bucket, code, step, true)
      },
      afterPropagation,
    })
    step(`function version ${deployed.version}${deployed.previousVersion && deployed.previousVersion !== deployed.version ? ` (was ${deployed.previousVersion})` : ''}`)
    resources = stackResources({...settings, memoryMb: deployed.memoryMb, reservedConcurrency: deployed.reservedConcurrency, functionVersion: deployed.version})

    ledger.at('the log group')
    const logs = use(new CloudWatchLogsClient(config))
    await logs.send(new CreateLogGroupCommand({logGroupName: resources.logGroup.logGroupName})).then(
      () => ledger.created(`log group ${resources.logGroup.logGroupName}`),
      (error: Error) => {
        if (error.name !== 'ResourceAlreadyExistsException') throw error
      },
    )
    await logs.send(new PutRetentionPolicyCommand(resources.logGroup))

    const sfn = use(createSfnClient(options))
    // The render workflow first: the batch workflow names it.
    for (const machine of [resources.stateMachine, resources.batchStateMachine]) {
      ledger.at(`state machine ${machine.name}`)
      step(`state machine ${machine.name}`)
      await ensureStateMachine(sfn, machine, stateMachineRoleArn, ledger)
    }

    ledger.at('the execution-end rule')
    step(`rule ${executionEndRuleName(name)} (renders that time out or are stopped)`)
    await ensureExecutionEndRule(use(new EventBridgeClient(config)), lambda, {
      stackName: name,
      region,
      accountId: settings.accountId,
      stateMachineArn: resources.stateMachine.arn,
      functionName: resources.function.FunctionName,
      alias: resources.alias.Name,
    })

    ledger.at('alarms')
    step(`alarms ${resources.alarms.map((alarm) => alarm.AlarmName).join(', ')}`)
    const cloudwatch = use(new CloudWatchClient(config))
    for (const alarm of resources.alarms) await cloudwatch.send(new PutMetricAlarmCommand(alarm))

    const limits = {reservedConcurrency: deployed.reservedConcurrency, unreservedConcurrency: account?.unreserved}
    const warning = throttledChunksWarning(DEFAULT_MAX_PARALLEL_CHUNKS, limits)
    if (warning) notice({code: warning.code, message: `renders with the default --max-parallel-chunks ${DEFAULT_MAX_PARALLEL_CHUNKS}: ${warning.message}`})

    ledger.at('the stack record')
    const record: StackRecord = {
      functionName: resources.function.FunctionName,
      functionVersion: deployed.version,
      stateMachineArn: resources.stateMachine.arn,
      region,
      memoryMb: deployed.memoryMb,
      arch,
      ...limits,
      deployedAt: new Date().toISOString(),
      kind: 'aws',
      formats: code.formats,
      ...(outputBuckets.length > 0 && {outputBuckets, deleteAfterRules: outputBucketRules}),
    }
    await bucket.putJson(STACK_RECORD_KEY, record)
    return {resources, version: deployed.version, previousVersion: deployed.previousVersion, memoryMb: deployed.memoryMb, reservedConcurrency: deployed.reservedConcurrency}
  } catch (error) {
    throw ledger.failure(error, {bucketName: options.bucketName, endpoint: options.endpoint})
  } finally {
    await prepared?.dispose()
  }
}

/**
 * The --delete-after rules in each output bucket, beside the owner's rules. A bucket whose
 * lifecycle deploy may not read or write keeps its configuration as it is: deploy goes on and says
 * which rules to add by hand. The record tells renders which buckets delete tagged outputs.
 */
async function outputBucketLifecycles(s3: S3Client, buckets: readonly string[], step: (message: string) => void, notice: (warning: Notice) => void): Promise<Record<string, DeleteAfterRulesState>> {
  const rules = deleteAfterRules()
  const states: Record<string, DeleteAfterRulesState> = {}
  for (const bucket of buckets) {
    step(`lifecycle rules of output bucket ${bucket} (--delete-after)`)
    const outcome = await tryOurLifecycleRules(s3, bucket, rules)
    if (outcome.status === 'written' || (outcome.status === 'unwritable' && outcome.present)) {
      states[bucket] = 'present'
      continue
    }
    states[bucket] = outcome.status === 'unwritable' ? 'missing' : 'unknown'
    const could = outcome.status === 'unwritable' ? 'may not change' : 'may not read'
    notice({
      code: 'output-bucket-lifecycle',
      message:
        `output bucket ${bucket}: deploy ${could} its lifecycle rules (${outcome.reason}), so outputs rendered into it with --delete-after would be tagged but never deleted; ` +
        `add these rules to ${bucket} by hand (or grant this deployer s3:GetLifecycleConfiguration and s3:PutLifecycleConfiguration on it) and deploy again: ${describeRules(rules)}` +
        (outcome.status === 'unwritable' ? `. Until then lambda render refuses --delete-after into ${bucket}` : ''),
    })
  }
  return states
}

async function ensureStateMachine(sfn: SFNClient, machine: StackResources['stateMachine'], roleArn: string, ledger: DeployLedger): Promise<void> {
  const definition = JSON.stringify(machine.definition)
  const exists = await sfn.send(new DescribeStateMachineCommand({stateMachineArn: machine.arn})).then(
    () => true,
    (error: Error) => {
      if (error.name === 'StateMachineDoesNotExist') return false
      throw error
    },
  )
  if (exists) {
    await sfn.send(new UpdateStateMachineCommand({stateMachineArn: machine.arn, definition, roleArn}))
    ledger.changed(`state machine ${machine.name}`)
  } else {
    await afterPropagation(() => sfn.send(new CreateStateMachineCommand({name: machine.name, type: 'STANDARD', definition, roleArn})))
    ledger.created(`state machine ${machine.name}`)
  }
}

/**
 * The account's concurrency (10 on a new account), read before anything is made: it decides
 * whether --concurrency can be reserved, and is recorded so that each render can warn before its
 * chunks are throttled. A deployer without lambda:GetAccountSettings still deploys.
 */
async function readAccountConcurrency(lambda: LambdaClient): Promise<AccountConcurrency | undefined> {
  const settings = await lambda.send(new GetAccountSettingsCommand({})).catch(() => undefined)
  const limit = settings?.AccountLimit
  if (limit?.ConcurrentExecutions === undefined) return undefined
  return {total: limit.ConcurrentExecutions, unreserved: limit.UnreservedConcurrentExecutions ?? limit.ConcurrentExecutions}
}

async function ensureRole(iam: IAMClient, role: RoleDefinition, ledger: DeployLedger): Promise<string> {
  const trust = JSON.stringify(role.AssumeRolePolicyDocument)
  let arn: string
  try {
    const existing = await iam.send(new GetRoleCommand({RoleName: role.RoleName}))
    await iam.send(new UpdateAssumeRolePolicyCommand({RoleName: role.RoleName, PolicyDocument: trust}))
    arn = existing.Role!.Arn!
  } catch (error) {
    if ((error as Error).name !== 'NoSuchEntity' && (error as Error).name !== 'NoSuchEntityException') throw error
    const created = await iam.send(new CreateRoleCommand({RoleName: role.RoleName, AssumeRolePolicyDocument: trust, Description: 'engine serverless rendering'}))
    ledger.created(`role ${role.RoleName}`)
    arn = created.Role!.Arn!
  }
  await iam.send(new PutRolePolicyCommand({RoleName: role.RoleName, PolicyName: role.PolicyName, PolicyDocument: JSON.stringify(role.PolicyDocument)}))
  return arn
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

