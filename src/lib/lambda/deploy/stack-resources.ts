import {EngineError} from '../../errors/engine-error.js'
import {renderStateMachineDefinition, FUNCTION_TIMEOUT_SECONDS, type StateMachineDefinition} from '../state-machine-definition.js'
import {SCRATCH_PREFIX} from '../storage-keys.js'
import {BUNDLE_HANDLER} from '../bundle/bundle-layout.js'
import {BATCHES_PREFIX} from '../batch/batch-records.js'
import {batchStateMachineArnOf, batchStateMachineDefinition} from '../batch/batch-state-machine.js'

export const DEFAULT_STACK_NAME = 'engine-render'
export const DEFAULT_MEMORY_MB = 10240
export const MIN_MEMORY_MB = 2048
export const MAX_MEMORY_MB = 10240
/** 1080p chunks, their segments and the browser's cache need room in /tmp. */
export const EPHEMERAL_STORAGE_MB = 10240
export const SCRATCH_EXPIRATION_DAYS = 3
/** The bundle's handler (`engine lambda bundle`); its cold start finds the bundle's ffmpeg, fonts and browser itself. */
export const HANDLER = BUNDLE_HANDLER

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
  /** Alarm when the function is invoked more often than this in an hour (runaway batches). */
  invocationsPerHourAlarm?: number
}

export interface PolicyDocument {
  Version: '2012-10-17'
  Statement: {Sid?: string; Effect: 'Allow'; Action: string[]; Resource?: string | string[]; Principal?: {Service: string}}[]
}

export interface RoleDefinition {
  RoleName: string
  AssumeRolePolicyDocument: PolicyDocument
  PolicyName: string
  PolicyDocument: PolicyDocument
}

export interface AlarmDefinition {
  AlarmName: string
  AlarmDescription: string
  Namespace: 'AWS/Lambda' | 'AWS/States'
  MetricName: string
  Dimensions: {Name: string; Value: string}[]
  Statistic: 'Sum'
  Period: number
  EvaluationPeriods: number
  Threshold: number
  ComparisonOperator: 'GreaterThanThreshold'
  TreatMissingData: 'notBreaching'
}

/** Everything `engine lambda deploy` creates or updates, as plain data (what the AWS calls send). */
export interface StackResources {
  bucket: {
    Bucket: string
    PublicAccessBlockConfiguration: {BlockPublicAcls: true; IgnorePublicAcls: true; BlockPublicPolicy: true; RestrictPublicBuckets: true}
    LifecycleConfiguration: {
      Rules: {ID: string; Status: 'Enabled'; Filter: {Prefix: string}; Expiration?: {Days: number}; AbortIncompleteMultipartUpload?: {DaysAfterInitiation: number}}[]
    }
  }
  functionRole: RoleDefinition
  function: {
    FunctionName: string
    FunctionArn: string
    Runtime: 'nodejs22.x'
    Architectures: ['x86_64']
    Handler: string
    MemorySize: number
    Timeout: number
    EphemeralStorage: {Size: number}
    Environment: {Variables: Record<string, string>}
    ReservedConcurrentExecutions?: number
  }
  stateMachineRole: RoleDefinition
  stateMachine: {name: string; arn: string; type: 'STANDARD'; definition: StateMachineDefinition}
  /** The batch workflow beside it: a Distributed Map of renders (`lambda render-batch`). */
  batchStateMachine: {name: string; arn: string; type: 'STANDARD'; definition: StateMachineDefinition}
  alarms: AlarmDefinition[]
  outputs: {RenderBucketName: string; RenderStateMachineArn: string; BatchStateMachineArn: string}
}

/** Who may assume a role: the service it is for, nothing else. */
export function trustPolicy(service: 'lambda.amazonaws.com' | 'states.amazonaws.com'): PolicyDocument {
  return {Version: '2012-10-17', Statement: [{Effect: 'Allow', Principal: {Service: service}, Action: ['sts:AssumeRole']}]}
}

export const functionRoleName = (name: string) => `${name}-function`

/**
 * The stack as data, so what deploy would create can be reviewed and tested without AWS. Least
 * privilege: the function reads and writes only its bucket and its own log group; the workflows
 * may only invoke the function, run renders and batches of this stack and read and write batch
 * rows (plus log delivery).
 */
export function stackResources(settings: StackSettings): StackResources {
  const name = settings.name ?? DEFAULT_STACK_NAME
  const memoryMb = settings.memoryMb ?? DEFAULT_MEMORY_MB
  if (!Number.isInteger(memoryMb) || memoryMb < MIN_MEMORY_MB || memoryMb > MAX_MEMORY_MB) {
    throw new EngineError('INVALID_FLAG', `--memory: ${memoryMb} MB is outside ${MIN_MEMORY_MB}-${MAX_MEMORY_MB}; chunks need at least ${MIN_MEMORY_MB} MB and Lambda allows at most ${MAX_MEMORY_MB}`, {memoryMb})
  }
  if (settings.reservedConcurrency !== undefined && !(Number.isInteger(settings.reservedConcurrency) && settings.reservedConcurrency >= 1)) {
    throw new EngineError('INVALID_FLAG', `--concurrency: ${settings.reservedConcurrency} must be a whole number of at least 1`, {concurrency: settings.reservedConcurrency})
  }
  const {region, accountId} = settings
  const bucketName = settings.bucketName ?? `${name}-${accountId}-${region}`
  const functionArn = `arn:aws:lambda:${region}:${accountId}:function:${name}`
  const stateMachineArn = `arn:aws:states:${region}:${accountId}:stateMachine:${name}`
  const batchStateMachineArn = batchStateMachineArnOf(stateMachineArn)
  const executionsOf = (machine: string) => `${machine.replace(':stateMachine:', ':execution:')}:*`
  const logGroupArn = `arn:aws:logs:${region}:${accountId}:log-group:/aws/lambda/${name}`
  const alarm = (suffix: string, description: string, metric: Omit<AlarmDefinition, 'AlarmName' | 'AlarmDescription' | 'Statistic' | 'EvaluationPeriods' | 'ComparisonOperator' | 'TreatMissingData'>): AlarmDefinition => ({
    AlarmName: `${name}-${suffix}`,
    AlarmDescription: description,
    Statistic: 'Sum',
    EvaluationPeriods: 1,
    ComparisonOperator: 'GreaterThanThreshold',
    TreatMissingData: 'notBreaching',
    ...metric,
  })
  const functionDimension = [{Name: 'FunctionName', Value: name}]

  return {
    bucket: {
      Bucket: bucketName,
      PublicAccessBlockConfiguration: {BlockPublicAcls: true, IgnorePublicAcls: true, BlockPublicPolicy: true, RestrictPublicBuckets: true},
      LifecycleConfiguration: {
        Rules: [
          {
            ID: 'expire-render-scratch',
            Status: 'Enabled',
            Filter: {Prefix: SCRATCH_PREFIX},
            Expiration: {Days: SCRATCH_EXPIRATION_DAYS},
          },
          // Outputs, sites and bundles go up in parts too; a function killed mid-upload leaves
          // parts that are billed but never listed, wherever in the bucket they were headed.
          {ID: 'abort-incomplete-uploads', Status: 'Enabled', Filter: {Prefix: ''}, AbortIncompleteMultipartUpload: {DaysAfterInitiation: 1}},
        ],
      },
    },
    functionRole: {
      RoleName: functionRoleName(name),
      AssumeRolePolicyDocument: trustPolicy('lambda.amazonaws.com'),
      PolicyName: `${name}-function`,
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {Sid: 'ListRenderBucket', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: `arn:aws:s3:::${bucketName}`},
          {Sid: 'RenderObjects', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], Resource: `arn:aws:s3:::${bucketName}/*`},
          {Sid: 'OwnLogs', Effect: 'Allow', Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'], Resource: [logGroupArn, `${logGroupArn}:*`]},
        ],
      },
    },
    function: {
      FunctionName: name,
      FunctionArn: functionArn,
      Runtime: 'nodejs22.x',
      Architectures: ['x86_64'],
      Handler: HANDLER,
      MemorySize: memoryMb,
      Timeout: FUNCTION_TIMEOUT_SECONDS,
      EphemeralStorage: {Size: EPHEMERAL_STORAGE_MB},
      // Empty on purpose: an update clears variables an older deploy set; the bundle needs none.
      Environment: {Variables: {}},
      ...(settings.reservedConcurrency !== undefined && {ReservedConcurrentExecutions: settings.reservedConcurrency}),
    },
    stateMachineRole: {
      RoleName: `${name}-state-machine`,
      AssumeRolePolicyDocument: trustPolicy('states.amazonaws.com'),
      PolicyName: `${name}-state-machine`,
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {Sid: 'InvokeRenderFunction', Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: [functionArn, `${functionArn}:*`]},
          // The batch workflow: its Distributed Map runs each row as a child of itself, which starts a
          // render and waits for it (startExecution.sync: the managed rule reports the render's end).
          {Sid: 'BatchRuns', Effect: 'Allow', Action: ['states:StartExecution'], Resource: [stateMachineArn, batchStateMachineArn]},
          {Sid: 'BatchFollowsRuns', Effect: 'Allow', Action: ['states:DescribeExecution', 'states:StopExecution'], Resource: [executionsOf(stateMachineArn), executionsOf(batchStateMachineArn)]},
          {Sid: 'BatchMapRuns', Effect: 'Allow', Action: ['states:DescribeMapRun', 'states:UpdateMapRun'], Resource: `arn:aws:states:${region}:${accountId}:mapRun:${name}-batch/*`},
          {
            Sid: 'BatchWaitsForRenders',
            Effect: 'Allow',
            Action: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
            Resource: `arn:aws:events:${region}:${accountId}:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule`,
          },
          // The rows it reads and each row's record it writes.
          {Sid: 'BatchRows', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: `arn:aws:s3:::${bucketName}/${BATCHES_PREFIX}*`},
          {
            Sid: 'LogDelivery',
            Effect: 'Allow',
            Action: [
              'logs:CreateLogDelivery',
              'logs:GetLogDelivery',
              'logs:UpdateLogDelivery',
              'logs:DeleteLogDelivery',
              'logs:ListLogDeliveries',
              'logs:PutResourcePolicy',
              'logs:DescribeResourcePolicies',
              'logs:DescribeLogGroups',
            ],
            // These log-delivery actions do not support resource-level permissions.
            Resource: '*',
          },
        ],
      },
    },
    stateMachine: {name, arn: stateMachineArn, type: 'STANDARD', definition: renderStateMachineDefinition(functionArn)},
    batchStateMachine: {name: `${name}-batch`, arn: batchStateMachineArn, type: 'STANDARD', definition: batchStateMachineDefinition(stateMachineArn, functionArn)},
    alarms: [
      alarm('invocations-per-hour', 'Render function invoked unusually often in an hour (a runaway batch?)', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Invocations',
        Dimensions: functionDimension,
        Period: 3600,
        Threshold: settings.invocationsPerHourAlarm ?? 10_000,
      }),
      alarm('function-errors', 'Render function invocations failed', {Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: functionDimension, Period: 300, Threshold: 0}),
      alarm('failed-executions', 'Render workflow executions failed', {
        Namespace: 'AWS/States',
        MetricName: 'ExecutionsFailed',
        Dimensions: [{Name: 'StateMachineArn', Value: stateMachineArn}],
        Period: 300,
        Threshold: 0,
      }),
    ],
    outputs: {RenderBucketName: bucketName, RenderStateMachineArn: stateMachineArn, BatchStateMachineArn: batchStateMachineArn},
  }
}
