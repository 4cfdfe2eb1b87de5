import {denyDeployedObjects} from './stack-roles.js'
import {assertBucketName} from '../output-settings.js'
import {DEFAULT_STACK_NAME, functionRoleName, type PolicyDocument} from './stack-resources.js'

export interface PolicyScope {
  region: string
  accountId: string
  /** The stack's name (`deploy --name`, default engine-render). */
  name?: string
  /** The bucket (`deploy --bucket-name`; default `<name>-<accountId>-<region>`). */
  bucketName?: string
  /** Other buckets outputs go to (`deploy --output-bucket`). */
  outputBuckets?: string[]
}

type Statement = Omit<PolicyDocument['Statement'][number], 'Effect'> & {Effect: 'Allow' | 'Deny'; Condition?: Record<string, Record<string, string | string[]>>}
export interface ScopedPolicyDocument {
  Version: '2012-10-17'
  Statement: Statement[]
}

function arns(scope: PolicyScope) {
  const name = scope.name ?? DEFAULT_STACK_NAME
  const bucket = scope.bucketName ?? `${name}-${scope.accountId}-${scope.region}`
  const {region, accountId} = scope
  return {
    name,
    bucketName: bucket,
    bucket: `arn:aws:s3:::${bucket}`,
    objects: `arn:aws:s3:::${bucket}/*`,
    // CloudWatch Logs matches every action but the tag ones against the group's ARN with `:*`.
    logGroup: `arn:aws:logs:${region}:${accountId}:log-group:/aws/lambda/${name}:*`,
    functionRole: `arn:aws:iam::${accountId}:role/${functionRoleName(name)}`,
    stateMachineRole: `arn:aws:iam::${accountId}:role/${name}-state-machine`,
    function: `arn:aws:lambda:${region}:${accountId}:function:${name}`,
    stateMachine: `arn:aws:states:${region}:${accountId}:stateMachine:${name}`,
    batchStateMachine: `arn:aws:states:${region}:${accountId}:stateMachine:${name}-batch`,
    executionEndRule: `arn:aws:events:${region}:${accountId}:rule/${name}-execution-ended`,
    executions: `arn:aws:states:${region}:${accountId}:execution:${name}:*`,
    batchExecutions: `arn:aws:states:${region}:${accountId}:execution:${name}-batch:*`,
    mapRuns: `arn:aws:states:${region}:${accountId}:mapRun:${name}-batch/*`,
    renderMapRuns: `arn:aws:states:${region}:${accountId}:mapRun:${name}/*`,
    alarms: `arn:aws:cloudwatch:${region}:${accountId}:alarm:${name}-*`,
  }
}

/**
 * What a caller of a deployed stack needs (an application's role, or `lambda sites create|ls|rm`,
 * `render`, `render-batch`, `still`, `progress`, `renders ls`, `cancel`): the stack's bucket, starting
 * its workflows, reading or stopping their executions and batches, and invoking its function for
 * stills. Nothing else: in particular it cannot write the function's code (deploy/*) or the stack
 * record, which only the deployer writes (deploy also checks the code's hash).
 */
export function renderCallerPolicy(scope: PolicyScope): ScopedPolicyDocument {
  const arn = arns(scope)
  return {
    Version: '2012-10-17',
    Statement: [
      ...callerStatements(scope),
      denyDeployedObjects(arn.bucketName),
    ],
  }
}

function callerStatements(scope: PolicyScope): Statement[] {
  const arn = arns(scope)
  return [
    {Sid: 'ListRenderBucket', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: arn.bucket},
    // Files of 64 MiB and more go up in parts (the bundle among them); a failed upload is aborted.
    {Sid: 'SitesAndOutputs', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], Resource: arn.objects},
    // Starting renders and batches; a render's progress lists the child workflows of its
    // Distributed Map (its cost), batch progress and cancel those of the batch's (ListExecutions
    // names the state machine or the map run, ListMapRuns the execution).
    {Sid: 'StartRenders', Effect: 'Allow', Action: ['states:StartExecution', 'states:ListExecutions'], Resource: [arn.stateMachine, arn.batchStateMachine]},
    {Sid: 'FollowRenders', Effect: 'Allow', Action: ['states:DescribeExecution', 'states:GetExecutionHistory', 'states:StopExecution', 'states:ListMapRuns'], Resource: [arn.executions, arn.batchExecutions]},
    {Sid: 'BatchCounts', Effect: 'Allow', Action: ['states:DescribeMapRun', 'states:ListExecutions'], Resource: [arn.mapRuns, arn.renderMapRuns]},
    // engine lambda still: one direct invocation of the render function.
    {Sid: 'RenderStills', Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: [arn.function, `${arn.function}:*`]},
    ...outputBucketCallerStatements(scope.outputBuckets ?? []),
  ]
}

/**
 * What `engine lambda deploy` (and `destroy`) needs on top (attach both to the user who deploys): the stack's two
 * roles and nothing else in IAM, `iam:PassRole` only for those roles and only to the service each
 * is for, the bucket's settings, the one function, the one state machine and its alarms.
 */
export function deployerPolicy(scope: PolicyScope): ScopedPolicyDocument {
  const arn = arns(scope)
  return {
    Version: '2012-10-17',
    Statement: mergeSameResources([
      {Sid: 'StackRoles', Effect: 'Allow', Action: ['iam:GetRole', 'iam:CreateRole', 'iam:PutRolePolicy', 'iam:UpdateAssumeRolePolicy', 'iam:DeleteRolePolicy', 'iam:DeleteRole'], Resource: [arn.functionRole, arn.stateMachineRole]},
      {Sid: 'PassFunctionRole', Effect: 'Allow', Action: ['iam:PassRole'], Resource: arn.functionRole, Condition: {StringEquals: {'iam:PassedToService': 'lambda.amazonaws.com'}}},
      {Sid: 'PassStateMachineRole', Effect: 'Allow', Action: ['iam:PassRole'], Resource: arn.stateMachineRole, Condition: {StringEquals: {'iam:PassedToService': 'states.amazonaws.com'}}},
      // Lifecycle rules are read before they are written: a PUT replaces every rule, and the owner's are kept.
      {Sid: 'RenderBucketSettings', Effect: 'Allow', Action: ['s3:CreateBucket', 's3:PutBucketPublicAccessBlock', 's3:GetLifecycleConfiguration', 's3:PutLifecycleConfiguration', 's3:DeleteBucket'], Resource: arn.bucket},
      ...outputBucketLifecycleStatements(scope.outputBuckets ?? []),
      {
        Sid: 'RenderFunction',
        Effect: 'Allow',
        Action: [
          'lambda:GetFunction',
          'lambda:CreateFunction',
          'lambda:UpdateFunctionCode',
          'lambda:UpdateFunctionConfiguration',
          'lambda:PutFunctionConcurrency',
          'lambda:DeleteFunctionConcurrency',
          // Each deploy publishes a version and moves the live alias; lambda functions ls|rm.
          'lambda:PublishVersion',
          'lambda:GetAlias',
          'lambda:CreateAlias',
          'lambda:UpdateAlias',
          'lambda:ListVersionsByFunction',
          'lambda:DeleteFunction',
          // engine lambda quotas
          'lambda:GetFunctionConfiguration',
          'lambda:GetFunctionConcurrency',
          // The execution-end rule may invoke the live alias.
          'lambda:AddPermission',
          // engine lambda destroy
          'lambda:DeleteAlias',
        ],
        Resource: [arn.function, `${arn.function}:*`],
      },
      // Renders that time out or are stopped from outside reach the function through this rule.
      {Sid: 'ExecutionEndRule', Effect: 'Allow', Action: ['events:PutRule', 'events:PutTargets', 'events:ListTargetsByRule', 'events:RemoveTargets', 'events:DeleteRule'], Resource: arn.executionEndRule},
      {Sid: 'FunctionLogs', Effect: 'Allow', Action: ['logs:CreateLogGroup', 'logs:PutRetentionPolicy', 'logs:DeleteLogGroup'], Resource: arn.logGroup},
      // Deploy and `engine lambda quotas` read how many functions the account runs at once. AWS
      // allows this read-only action only on "*": it names no resource.
      {Sid: 'AccountLimits', Effect: 'Allow', Action: ['lambda:GetAccountSettings'], Resource: '*'},

      {Sid: 'RenderWorkflow', Effect: 'Allow', Action: ['states:DescribeStateMachine', 'states:CreateStateMachine', 'states:UpdateStateMachine', 'states:DeleteStateMachine'], Resource: [arn.stateMachine, arn.batchStateMachine]},
      // lambda functions ls|rm: which version each running execution invokes.
      {Sid: 'VersionsInUse', Effect: 'Allow', Action: ['states:DescribeStateMachineForExecution'], Resource: [arn.executions, arn.batchExecutions]},
      {Sid: 'StackAlarms', Effect: 'Allow', Action: ['cloudwatch:PutMetricAlarm', 'cloudwatch:DeleteAlarms'], Resource: arn.alarms},
      ...callerStatements(scope),
    ]),
  }
}

/**
 * One statement per set of resources: the deployer's policy repeats the caller's resources (the
 * workflows, their executions), and each repetition of a long ARN counts against the 6,144
 * characters of a managed policy. Statements with a condition or a Deny stay as they are.
 */
function mergeSameResources(statements: Statement[]): Statement[] {
  const merged: Statement[] = []
  const byResources = new Map<string, Statement>()
  for (const statement of statements) {
    if (statement.Effect !== 'Allow' || statement.Condition) {
      merged.push(statement)
      continue
    }
    const key = JSON.stringify([statement.Resource].flat())
    const first = byResources.get(key)
    if (first) first.Action = [...new Set([...first.Action, ...statement.Action])]
    else {
      const copy = {...statement, Action: [...statement.Action]}
      byResources.set(key, copy)
      merged.push(copy)
    }
  }
  return merged
}

/** The --delete-after rules deploy adds to each output bucket beside its owner's. */
function outputBucketLifecycleStatements(buckets: readonly string[]): Statement[] {
  const names = [...new Set(buckets)].map((bucket) => assertBucketName(bucket, '--output-bucket'))
  if (names.length === 0) return []
  return [{Sid: 'OutputBucketLifecycle', Effect: 'Allow', Action: ['s3:GetLifecycleConfiguration', 's3:PutLifecycleConfiguration'], Resource: names.map((bucket) => `arn:aws:s3:::${bucket}`)}]
}

/**
 * Outputs in other buckets: presigned URLs are signed with the caller's credentials, so the caller
 * reads them; `renders rm` lists a frame-file output and deletes it.
 */
function outputBucketCallerStatements(buckets: readonly string[]): Statement[] {
  const names = [...new Set(buckets)].map((bucket) => assertBucketName(bucket, '--output-bucket'))
  if (names.length === 0) return []
  return [
    {Sid: 'ListOutputBuckets', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: names.map((bucket) => `arn:aws:s3:::${bucket}`)},
    {Sid: 'Outputs', Effect: 'Allow', Action: ['s3:GetObject', 's3:DeleteObject'], Resource: names.map((bucket) => `arn:aws:s3:::${bucket}/*`)},
  ]
}
