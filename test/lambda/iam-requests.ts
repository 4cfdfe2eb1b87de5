import {runSimulation} from '@cloud-copilot/iam-simulate'
import type {Pluggable} from '@smithy/types'

/** One AWS API call as the SDK sent it. */
export interface RecordedCall {
  command: string
  input: Record<string, any>
  /** The error's name when the call failed (recorded by test/support/record-aws-calls.mjs). */
  error?: string
}

/** What IAM authorises for a call: the action, the resource ARN it is evaluated on, and the context it sets. */
export interface IamRequest {
  action: string
  resource: string
  context?: Record<string, string>
  call: string
}

/** Middleware that records every call a client sends (at `initialize`, before anything answers it). */
export function recordCalls(calls: RecordedCall[]): Pluggable<any, any> {
  return {
    applyToStack: (stack) => {
      stack.add(
        (next, context) => async (args) => {
          calls.push({command: (context.commandName as string).replace(/Command$/, ''), input: args.input as Record<string, any>})
          return next(args)
        },
        {step: 'initialize', name: 'recordIamCalls'},
      )
    },
  }
}

/**
 * The IAM requests of one call, per each service's authorization reference: the action (which is
 * not always the API's name: HeadObject is s3:GetObject, uploads in parts s3:PutObject, a Lambda
 * or state machine created with a role also iam:PassRole) and the resource ARN it names.
 */
export function iamRequests(call: RecordedCall, account: {region: string; accountId: string}): IamRequest[] {
  const {region, accountId} = account
  const {command, input} = call
  const one = (action: string, resource: string, context?: Record<string, string>): IamRequest[] => [{action, resource, call: command, ...(context && {context})}]
  const object = () => `arn:aws:s3:::${input.Bucket}/${input.Key}`
  const bucket = () => `arn:aws:s3:::${input.Bucket}`
  const fn = () => `arn:aws:lambda:${region}:${accountId}:function:${input.FunctionName}${input.Qualifier ? `:${input.Qualifier}` : ''}`
  const role = () => `arn:aws:iam::${accountId}:role/${input.RoleName}`
  switch (command) {
    case 'GetCallerIdentity':
      return [] // sts:GetCallerIdentity needs no permission.
    case 'GetObject':
    case 'HeadObject':
      // S3 answers a missing key with 404 only to a caller who may list the bucket; to others 403,
      // which code that expects "not found" (an output key checked free, a marker looked for) takes for a failure.
      return [...one('s3:GetObject', object()), ...(/NotFound|NoSuchKey/.test(call.error ?? '') ? one('s3:ListBucket', bucket()) : [])]
    case 'PutObject':
    case 'CreateMultipartUpload':
      // Tags set with the object (x-amz-tagging) need s3:PutObjectTagging too.
      return [...one('s3:PutObject', object()), ...(input.Tagging ? one('s3:PutObjectTagging', object()) : [])]
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return one('s3:PutObject', object())
    case 'CopyObject':
      // The source (Bucket/Key, URL-encoded) is read, the target written.
      return [...one('s3:GetObject', `arn:aws:s3:::${decodeURIComponent(String(input.CopySource).replace(/^\//, ''))}`), ...one('s3:PutObject', object())]
    case 'PutObjectTagging':
      return one('s3:PutObjectTagging', object())
    case 'GetObjectTagging':
      return one('s3:GetObjectTagging', object())
    case 'AbortMultipartUpload':
      return one('s3:AbortMultipartUpload', object())
    case 'DeleteObject':
      return one('s3:DeleteObject', object())
    case 'DeleteObjects':
      return (input.Delete?.Objects ?? []).map((entry: {Key: string}) => ({action: 's3:DeleteObject', resource: `arn:aws:s3:::${input.Bucket}/${entry.Key}`, call: command}))
    case 'ListObjectsV2':
      // The listing's condition keys, for policies that limit what may be listed.
      return one('s3:ListBucket', bucket(), {...(input.Prefix !== undefined && {'s3:prefix': input.Prefix}), ...(input.Delimiter !== undefined && {'s3:delimiter': input.Delimiter})})
    case 'CreateBucket':
      return one('s3:CreateBucket', bucket())
    case 'PutPublicAccessBlock':
      return one('s3:PutBucketPublicAccessBlock', bucket())
    case 'GetBucketLifecycleConfiguration':
      return one('s3:GetLifecycleConfiguration', bucket())
    case 'PutBucketLifecycleConfiguration':
      return one('s3:PutLifecycleConfiguration', bucket())
    case 'DeleteBucket':
      return one('s3:DeleteBucket', bucket())
    case 'GetRole':
    case 'CreateRole':
    case 'PutRolePolicy':
    case 'UpdateAssumeRolePolicy':
    case 'DeleteRolePolicy':
    case 'DeleteRole':
      return one(`iam:${command}`, role())
    case 'GetAccountSettings':
      return one('lambda:GetAccountSettings', '*')
    case 'CreateFunction':
      return [...one('lambda:CreateFunction', fn()), ...one('iam:PassRole', input.Role, {'iam:PassedToService': 'lambda.amazonaws.com'})]
    case 'UpdateFunctionConfiguration':
      return [...one('lambda:UpdateFunctionConfiguration', fn()), ...(input.Role ? one('iam:PassRole', input.Role, {'iam:PassedToService': 'lambda.amazonaws.com'}) : [])]
    case 'GetFunction':
    case 'UpdateFunctionCode':
    case 'PutFunctionConcurrency':
    case 'DeleteFunctionConcurrency':
    case 'PublishVersion':
    case 'ListVersionsByFunction':
    case 'DeleteFunction':
    case 'GetFunctionConfiguration':
    case 'GetFunctionConcurrency':
    case 'AddPermission':
      return one(`lambda:${command}`, fn())
    case 'GetAlias':
    case 'CreateAlias':
    case 'UpdateAlias':
    case 'DeleteAlias':
      return one(`lambda:${command}`, `arn:aws:lambda:${region}:${accountId}:function:${input.FunctionName}:${input.Name}`)
    case 'Invoke':
      return one('lambda:InvokeFunction', fn())
    case 'CreateLogGroup':
    case 'PutRetentionPolicy':
    case 'DeleteLogGroup':
      // CloudWatch Logs evaluates these on the group's ARN with its trailing :*.
      return one(`logs:${command}`, `arn:aws:logs:${region}:${accountId}:log-group:${input.logGroupName}:*`)
    case 'DeleteStateMachine':
      return one('states:DeleteStateMachine', input.stateMachineArn)
    case 'DescribeStateMachine':
    case 'UpdateStateMachine':
      return [...one(`states:${command}`, input.stateMachineArn), ...(input.roleArn ? one('iam:PassRole', input.roleArn, {'iam:PassedToService': 'states.amazonaws.com'}) : [])]
    case 'CreateStateMachine':
      return [...one('states:CreateStateMachine', `arn:aws:states:${region}:${accountId}:stateMachine:${input.name}`), ...one('iam:PassRole', input.roleArn, {'iam:PassedToService': 'states.amazonaws.com'})]
    case 'StartExecution':
      return one('states:StartExecution', input.stateMachineArn)
    case 'DescribeExecution':
    case 'StopExecution':
    case 'GetExecutionHistory':
    case 'ListMapRuns':
    case 'DescribeStateMachineForExecution':
      return one(`states:${command}`, input.executionArn)
    case 'ListExecutions':
      return one('states:ListExecutions', input.mapRunArn ?? input.stateMachineArn)
    case 'DescribeMapRun':
      return one('states:DescribeMapRun', input.mapRunArn)
    case 'PutRule':
      return one('events:PutRule', `arn:aws:events:${region}:${accountId}:rule/${input.Name}`)
    case 'PutTargets':
    case 'ListTargetsByRule':
    case 'RemoveTargets':
      return one(`events:${command}`, `arn:aws:events:${region}:${accountId}:rule/${input.Rule}`)
    case 'DeleteRule':
      return one('events:DeleteRule', `arn:aws:events:${region}:${accountId}:rule/${input.Name}`)
    case 'DeleteAlarms':
      return (input.AlarmNames as string[]).map((alarm) => ({action: 'cloudwatch:DeleteAlarms', resource: `arn:aws:cloudwatch:${region}:${accountId}:alarm:${alarm}`, call: command}))
    case 'PutMetricAlarm':
      return one('cloudwatch:PutMetricAlarm', `arn:aws:cloudwatch:${region}:${accountId}:alarm:${input.AlarmName}`)
    default:
      throw new Error(`no IAM mapping for the call ${command}: add it here`)
  }
}

/** Evaluates each request against one identity policy with @cloud-copilot/iam-simulate; the denied ones, with why (each distinct request once). */
export async function deniedRequests(requests: readonly IamRequest[], policy: unknown, accountId: string): Promise<string[]> {
  const denied: string[] = []
  const distinct = new Map(requests.map((request) => [JSON.stringify([request.action, request.resource, request.context ?? {}]), request]))
  for (const request of distinct.values()) {
    const response = await runSimulation(
      {
        identityPolicies: [{name: 'under-test', policy: policy as never}],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          action: request.action,
          principal: `arn:aws:iam::${accountId}:user/deployer`,
          resource: {accountId, resource: request.resource},
          contextVariables: request.context ?? {},
        },
      } as never,
      {},
    )
    if (response.resultType === 'error') denied.push(`${request.call}: ${request.action} on ${request.resource}: ${JSON.stringify(response.errors)}`)
    else if (response.overallResult !== 'Allowed') denied.push(`${request.call}: ${request.action} on ${request.resource}: ${response.overallResult}`)
  }
  return denied
}
