import {BATCHES_PREFIX} from '../batch/batch-records.js'
import {STACK_RECORD_KEY} from '../stack-record.js'

/** Where deploy puts the function's code: only the deployer writes there. */
export const DEPLOY_PREFIX = 'deploy/'

export interface PolicyDocument {
  Version: '2012-10-17'
  Statement: {Sid?: string; Effect: 'Allow' | 'Deny'; Action: string[]; Resource?: string | string[]; Principal?: {Service: string}}[]
}

export interface RoleDefinition {
  RoleName: string
  AssumeRolePolicyDocument: PolicyDocument
  PolicyName: string
  PolicyDocument: PolicyDocument
}

/** Who may assume a role: the service it is for, nothing else. */
export function trustPolicy(service: 'lambda.amazonaws.com' | 'states.amazonaws.com'): PolicyDocument {
  return {Version: '2012-10-17', Statement: [{Effect: 'Allow', Principal: {Service: service}, Action: ['sts:AssumeRole']}]}
}

export const functionRoleName = (name: string) => `${name}-function`
export const stateMachineRoleName = (name: string) => `${name}-state-machine`

/** The ARNs the roles name. */
export interface RoleScope {
  name: string
  region: string
  accountId: string
  bucketName: string
  functionArn: string
  stateMachineArn: string
  batchStateMachineArn: string
  logGroupName: string
  /** Other buckets renders write outputs to (`deploy --output-bucket`). */
  outputBuckets?: string[]
}

/**
 * The function reads and writes only its bucket, but not the code deploy put there nor the stack
 * record (a render cannot plant the next deploy's code), and writes only to its own log group
 * (which deploy creates with its retention, so the function needs no logs:CreateLogGroup).
 */
export function functionRole(scope: RoleScope): RoleDefinition {
  const logGroupArn = `arn:aws:logs:${scope.region}:${scope.accountId}:log-group:${scope.logGroupName}`
  return {
    RoleName: functionRoleName(scope.name),
    AssumeRolePolicyDocument: trustPolicy('lambda.amazonaws.com'),
    PolicyName: `${scope.name}-function`,
    PolicyDocument: {
      Version: '2012-10-17',
      Statement: [
        {Sid: 'ListRenderBucket', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: `arn:aws:s3:::${scope.bucketName}`},
        // PutObjectTagging: an output written with --delete-after carries its tag.
        {Sid: 'RenderObjects', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging', 's3:DeleteObject', 's3:AbortMultipartUpload'], Resource: `arn:aws:s3:::${scope.bucketName}/*`},
        ...outputBucketStatements(scope.outputBuckets ?? []),
        {Sid: 'OwnLogs', Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: `${logGroupArn}:*`},
        denyDeployedObjects(scope.bucketName),
      ],
    },
  }
}

/**
 * The workflows may only invoke the function (its published versions), run renders, batches and
 * their Distributed Maps' children of this stack, and read and write batch rows. No log delivery: the workflows log nothing to
 * CloudWatch Logs (their history is what progress reads).
 */
export function stateMachineRole(scope: RoleScope): RoleDefinition {
  const {region, accountId, functionArn, stateMachineArn, batchStateMachineArn} = scope
  const executionsOf = (machine: string) => `${machine.replace(':stateMachine:', ':execution:')}:*`
  // A Distributed Map's child executions are `execution:<machine>/<label>:<id>`, its runs `mapRun:<machine>/<label>:<id>`.
  const childExecutionsOf = (machine: string) => `${machine.replace(':stateMachine:', ':execution:')}/*`
  const mapRunsOf = (machine: string) => `${machine.replace(':stateMachine:', ':mapRun:')}/*`
  return {
    RoleName: stateMachineRoleName(scope.name),
    AssumeRolePolicyDocument: trustPolicy('states.amazonaws.com'),
    PolicyName: `${scope.name}-state-machine`,
    PolicyDocument: {
      Version: '2012-10-17',
      Statement: [
        {Sid: 'InvokeRenderFunction', Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: [functionArn, `${functionArn}:*`]},
        // Both workflows have a Distributed Map, which runs each item as a child execution of its own
        // workflow: the render's for more than 40 chunks at once, the batch's for each row, which
        // starts a render and waits for it (startExecution.sync: the managed rule reports its end).
        {Sid: 'ChildRuns', Effect: 'Allow', Action: ['states:StartExecution'], Resource: [stateMachineArn, batchStateMachineArn]},
        {
          Sid: 'FollowChildRuns',
          Effect: 'Allow',
          Action: ['states:DescribeExecution', 'states:StopExecution'],
          Resource: [executionsOf(stateMachineArn), childExecutionsOf(stateMachineArn), executionsOf(batchStateMachineArn), childExecutionsOf(batchStateMachineArn)],
        },
        {Sid: 'MapRuns', Effect: 'Allow', Action: ['states:DescribeMapRun', 'states:UpdateMapRun'], Resource: [mapRunsOf(stateMachineArn), mapRunsOf(batchStateMachineArn)]},
        {
          Sid: 'BatchWaitsForRenders',
          Effect: 'Allow',
          Action: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
          Resource: `arn:aws:events:${region}:${accountId}:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule`,
        },
        // The rows it reads, each row's record it writes, and the batch Map's results (its
        // ResultWriter writes in parts, which AWS's guide grants these two more actions for).
        {Sid: 'BatchRows', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'], Resource: `arn:aws:s3:::${scope.bucketName}/${BATCHES_PREFIX}*`},
      ],
    },
  }
}

/** The deployer's objects (the code and the stack record), kept from everyone else who writes the bucket. */
export function denyDeployedObjects(bucketName: string): PolicyDocument['Statement'][number] {
  return {
    Sid: 'DeployedCodeIsTheDeployers',
    Effect: 'Deny',
    Action: ['s3:PutObject', 's3:DeleteObject'],
    Resource: [`arn:aws:s3:::${bucketName}/${DEPLOY_PREFIX}*`, `arn:aws:s3:::${bucketName}/${STACK_RECORD_KEY}`],
  }
}

/**
 * Outputs to other buckets (`--output-bucket`): the function first checks that the output key is
 * free (HeadObject, which needs s3:GetObject, and for a frame sequence a listing under the key;
 * without s3:ListBucket S3 answers a missing key with 403 rather than 404, and the check would
 * fail every render), then writes the output and its poster (tagged for --delete-after) and
 * deletes them again when the render was stopped meanwhile.
 */
export function outputBucketStatements(buckets: readonly string[]): PolicyDocument['Statement'] {
  if (buckets.length === 0) return []
  return [
    {Sid: 'ListOutputBuckets', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: buckets.map((bucket) => `arn:aws:s3:::${bucket}`)},
    {Sid: 'OutputBuckets', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging', 's3:DeleteObject', 's3:AbortMultipartUpload'], Resource: buckets.map((bucket) => `arn:aws:s3:::${bucket}/*`)},
  ]
}
