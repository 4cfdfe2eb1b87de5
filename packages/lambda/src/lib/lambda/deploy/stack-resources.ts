import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {renderStateMachineDefinition, FUNCTION_TIMEOUT_SECONDS, type StateMachineDefinition} from '../state-machine-definition.js'
import {SCRATCH_PREFIX} from '../storage-keys.js'
import {BUNDLE_HANDLER} from '../bundle/bundle-layout.js'
import {batchStateMachineArnOf, batchStateMachineDefinition} from '../batch/batch-state-machine.js'
import {stackAlarms, type AlarmDefinition} from './stack-alarms.js'
import {assertBucketName, bucketNameProblem, deleteAfterRules} from '../output-settings.js'
import {functionRole, stateMachineRole, type RoleDefinition} from './stack-roles.js'

export {functionRoleName, trustPolicy, type PolicyDocument, type RoleDefinition} from './stack-roles.js'
export type {AlarmDefinition} from './stack-alarms.js'

export const DEFAULT_STACK_NAME = 'engine-render'
/** What deploy asks for; an account capped lower (new accounts: 3,008 MB) gets its cap. */
export const DEFAULT_MEMORY_MB = 10240
export const MIN_MEMORY_MB = 2048
export const MAX_MEMORY_MB = 10240
/** The cap of new accounts, when AWS refuses more without saying its number. */
export const FALLBACK_MEMORY_MB = 3008
/** 1080p chunks, their segments and the browser's cache need room in /tmp. */
export const EPHEMERAL_STORAGE_MB = 10240
export const SCRATCH_EXPIRATION_DAYS = 3
/** The bundle's handler (`engine lambda bundle`); its cold start finds the bundle's ffmpeg, fonts and browser itself. */
export const HANDLER = BUNDLE_HANDLER
export const ARCHITECTURES = ['x86_64', 'arm64'] as const
export type Architecture = (typeof ARCHITECTURES)[number]
/** The alias deploy moves to each version it publishes; direct invocations (stills) go through it. */
export const LIVE_ALIAS = 'live'
export const DEFAULT_LOG_RETENTION_DAYS = 14
/** The values CloudWatch Logs accepts for a retention. */
export const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const

export interface StackSettings {
  region: string
  accountId: string
  /** Prefix of every resource name (default engine-render). */
  name?: string
  /** Default `<name>-<accountId>-<region>`: bucket names are global. */
  bucketName?: string
  memoryMb?: number
  /** Reserved concurrency; absent: the function shares the account's pool. */
  reservedConcurrency?: number
  /** Default x86_64; arm64 (Graviton) costs about 20 % less per GB-second and needs an arm64 bundle. */
  arch?: Architecture
  /** Days the function's logs are kept (default 14). */
  logRetentionDays?: number
  /** SNS topic the alarms notify. */
  alarmTopicArn?: string
  /** Alarm when the function is invoked more often than this in an hour (runaway batches). */
  invocationsPerHourAlarm?: number
  /** Buckets besides the render bucket that renders may write their output to (`--output-bucket`): the function's role is granted them. */
  outputBuckets?: string[]
  /**
   * The published version the workflows invoke. Executions keep the definition they started with,
   * so a render started before a deploy runs every chunk on its version.
   */
  functionVersion?: string
}

interface StateMachineResource {
  name: string
  arn: string
  type: 'STANDARD'
  definition: StateMachineDefinition
}

/** Everything `engine lambda deploy` creates or updates, as plain data (what the AWS calls send). */
export interface StackResources {
  bucket: {
    Bucket: string
    PublicAccessBlockConfiguration: {BlockPublicAcls: true; IgnorePublicAcls: true; BlockPublicPolicy: true; RestrictPublicBuckets: true}
    LifecycleConfiguration: {
      Rules: {ID: string; Status: 'Enabled'; Filter: {Prefix: string} | {Tag: {Key: string; Value: string}}; Expiration?: {Days: number}; AbortIncompleteMultipartUpload?: {DaysAfterInitiation: number}}[]
    }
  }
  functionRole: RoleDefinition
  function: {
    FunctionName: string
    FunctionArn: string
    Runtime: 'nodejs22.x'
    Architectures: [Architecture]
    Handler: string
    MemorySize: number
    Timeout: number
    EphemeralStorage: {Size: number}
    Environment: {Variables: Record<string, string>}
    ReservedConcurrentExecutions?: number
  }
  alias: {Name: string; FunctionVersion?: string}
  logGroup: {logGroupName: string; retentionInDays: number}
  stateMachineRole: RoleDefinition
  stateMachine: StateMachineResource
  /** The batch workflow beside it: a Distributed Map of renders (`lambda render-batch`). */
  batchStateMachine: StateMachineResource
  alarms: AlarmDefinition[]
  outputs: {RenderBucketName: string; RenderStateMachineArn: string; BatchStateMachineArn: string}
}

/** Lambda's function-name rule; the name prefixes every other resource too. */
const NAME = /^[A-Za-z0-9_-]{1,56}$/
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/

/**
 * The stack as data, so what deploy would create can be reviewed and tested without AWS, and every
 * setting is checked before anything is created. Least privilege: see stack-roles.ts.
 */
export function stackResources(settings: StackSettings): StackResources {
  const name = settings.name ?? DEFAULT_STACK_NAME
  const memoryMb = settings.memoryMb ?? DEFAULT_MEMORY_MB
  const arch = settings.arch ?? 'x86_64'
  const retentionInDays = settings.logRetentionDays ?? DEFAULT_LOG_RETENTION_DAYS
  checkSettings(settings, {name, memoryMb, arch, retentionInDays})
  const {region, accountId} = settings
  const bucketName = settings.bucketName ?? `${name}-${accountId}-${region}`
  // `deploy --dry-run` shows the default name with a placeholder for the account: checked when deployed.
  const checkable = settings.bucketName !== undefined || /^\d{12}$/.test(accountId)
  if (checkable && bucketNameProblem(bucketName)) {
    throw new EngineError('INVALID_FLAG', `--bucket-name: "${bucketName}" is not a valid S3 bucket name (3-63 lower-case letters, digits, dots and hyphens); pass another --bucket-name or a shorter --name`, {
      field: 'bucket-name',
      value: bucketName,
    })
  }
  const functionArn = `arn:aws:lambda:${region}:${accountId}:function:${name}`
  const invokedArn = settings.functionVersion ? `${functionArn}:${settings.functionVersion}` : functionArn
  const stateMachineArn = `arn:aws:states:${region}:${accountId}:stateMachine:${name}`
  const batchStateMachineArn = batchStateMachineArnOf(stateMachineArn)
  const logGroupName = `/aws/lambda/${name}`
  const outputBuckets = [...new Set(settings.outputBuckets ?? [])].map((bucket) => assertBucketName(bucket, '--output-bucket'))
  const scope = {name, region, accountId, bucketName, functionArn, stateMachineArn, batchStateMachineArn, logGroupName, outputBuckets}

  return {
    bucket: {
      Bucket: bucketName,
      PublicAccessBlockConfiguration: {BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true},
      LifecycleConfiguration: {
        Rules: [
          {ID: 'expire-render-scratch', Status: 'Enabled', Filter: {Prefix: SCRATCH_PREFIX}, Expiration: {Days: SCRATCH_EXPIRATION_DAYS}},
          // Outputs, sites and bundles go up in parts too; a function killed mid-upload leaves
          // parts that are billed but never listed, wherever in the bucket they were headed.
          {ID: 'abort-incomplete-uploads', Status: 'Enabled', Filter: {Prefix: ''}, AbortIncompleteMultipartUpload: {DaysAfterInitiation: 1}},
          // Outputs rendered with --delete-after carry its tag; each value's rule expires them.
          ...deleteAfterRules(),
        ],
      },
    },
    functionRole: functionRole(scope),
    function: {
      FunctionName: name,
      FunctionArn: functionArn,
      Runtime: 'nodejs22.x',
      Architectures: [arch],
      Handler: HANDLER,
      MemorySize: memoryMb,
      Timeout: FUNCTION_TIMEOUT_SECONDS,
      EphemeralStorage: {Size: EPHEMERAL_STORAGE_MB},
      // Empty on purpose: an update clears variables an older deploy set; the bundle needs none.
      Environment: {Variables: {}},
      ...(settings.reservedConcurrency !== undefined && {ReservedConcurrentExecutions: settings.reservedConcurrency}),
    },
    alias: {Name: LIVE_ALIAS, ...(settings.functionVersion && {FunctionVersion: settings.functionVersion})},
    logGroup: {logGroupName, retentionInDays},
    stateMachineRole: stateMachineRole(scope),
    stateMachine: {name, arn: stateMachineArn, type: 'STANDARD', definition: renderStateMachineDefinition(invokedArn)},
    batchStateMachine: {name: `${name}-batch`, arn: batchStateMachineArn, type: 'STANDARD', definition: batchStateMachineDefinition(stateMachineArn, invokedArn)},
    alarms: stackAlarms({name, renderStateMachineArn: stateMachineArn, batchStateMachineArn, invocationsPerHour: settings.invocationsPerHourAlarm, topicArn: settings.alarmTopicArn}),
    outputs: {RenderBucketName: bucketName, RenderStateMachineArn: stateMachineArn, BatchStateMachineArn: batchStateMachineArn},
  }
}

function checkSettings(settings: StackSettings, resolved: {name: string; memoryMb: number; arch: string; retentionInDays: number}): void {
  const {name, memoryMb, arch, retentionInDays} = resolved
  const invalid = (field: string, value: unknown, message: string) => new EngineError('INVALID_FLAG', `--${field}: ${message}`, {field, value})
  if (!NAME.test(name)) throw invalid('name', name, `"${name}" must be 1-56 letters, digits, hyphens or underscores (it names the function, the workflows and the roles)`)
  if (!Number.isInteger(memoryMb) || memoryMb < MIN_MEMORY_MB || memoryMb > MAX_MEMORY_MB) {
    throw invalid('memory', memoryMb, `${memoryMb} MB is outside ${MIN_MEMORY_MB}-${MAX_MEMORY_MB}; chunks need at least ${MIN_MEMORY_MB} MB and Lambda allows at most ${MAX_MEMORY_MB}`)
  }
  if (settings.reservedConcurrency !== undefined && !(Number.isInteger(settings.reservedConcurrency) && settings.reservedConcurrency >= 1)) {
    throw invalid('concurrency', settings.reservedConcurrency, `${settings.reservedConcurrency} must be a whole number of at least 1`)
  }
  if (!(ARCHITECTURES as readonly string[]).includes(arch)) throw invalid('arch', arch, `"${arch}" is not one of ${ARCHITECTURES.join(', ')}`)
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(retentionInDays)) {
    throw invalid('log-retention', retentionInDays, `${retentionInDays} days is not a retention CloudWatch Logs offers; use one of ${LOG_RETENTION_DAYS.join(', ')}`)
  }
  if (settings.alarmTopicArn !== undefined && !TOPIC_ARN.test(settings.alarmTopicArn)) {
    throw invalid('alarm-topic', settings.alarmTopicArn, `"${settings.alarmTopicArn}" is not an SNS topic ARN (arn:aws:sns:<region>:<account>:<topic>)`)
  }
}
