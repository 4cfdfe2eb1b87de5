import {describe, expect, it} from 'vitest'
import type {ScopedPolicyDocument} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {runCli} from '../support/run-cli.js'

const ACCOUNT = '123456789012'

// Every request `engine lambda deploy` sends (deploy-stack.ts), as the IAM action that allows it.
const DEPLOY_ACTIONS = [
  'iam:GetRole', 'iam:CreateRole', 'iam:PutRolePolicy', 'iam:UpdateAssumeRolePolicy', 'iam:PassRole',
  's3:CreateBucket', 's3:PutBucketPublicAccessBlock', 's3:GetLifecycleConfiguration', 's3:PutLifecycleConfiguration', 's3:GetObject', 's3:PutObject',
  'lambda:GetFunction', 'lambda:CreateFunction', 'lambda:UpdateFunctionCode', 'lambda:UpdateFunctionConfiguration', 'lambda:PutFunctionConcurrency', 'lambda:DeleteFunctionConcurrency',
  // A version per deploy, the live alias moved to it; lambda functions ls|rm.
  'lambda:PublishVersion', 'lambda:GetAlias', 'lambda:CreateAlias', 'lambda:UpdateAlias', 'lambda:ListVersionsByFunction', 'lambda:DeleteFunction', 'states:DescribeStateMachineForExecution',
  'logs:CreateLogGroup', 'logs:PutRetentionPolicy',
  // engine lambda quotas (read-quotas.ts); deploy reads the account's concurrency too.
  'lambda:GetFunctionConfiguration', 'lambda:GetFunctionConcurrency', 'lambda:GetAccountSettings',
  'states:DescribeStateMachine', 'states:CreateStateMachine', 'states:UpdateStateMachine', 'cloudwatch:PutMetricAlarm',
  // The execution-end rule (renders that time out or are stopped) and its permission to invoke the live alias.
  'events:PutRule', 'events:PutTargets', 'lambda:AddPermission',
]
// sites create|ls|rm, render, render-batch, still, progress, renders ls, cancel; uploads in parts.
const CALLER_ACTIONS = [
  's3:ListBucket', 's3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload',
  'states:StartExecution', 'states:DescribeExecution', 'states:GetExecutionHistory', 'states:StopExecution',
  'states:ListMapRuns', 'states:ListExecutions', 'states:DescribeMapRun',
  'lambda:InvokeFunction',
]

async function policy(kind: string, ...flags: string[]): Promise<ScopedPolicyDocument> {
  const result = await runCli(['lambda', 'policies', kind, '--account-id', ACCOUNT, '--region', 'eu-west-1', ...flags])
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as ScopedPolicyDocument
}

function assertIamShape(document: ScopedPolicyDocument): void {
  expect(document.Version).toBe('2012-10-17')
  expect(document.Statement.length).toBeGreaterThan(0)
  const sids = document.Statement.map((statement) => statement.Sid)
  expect(new Set(sids).size).toBe(sids.length)
  for (const statement of document.Statement) {
    expect(statement.Sid).toMatch(/^[A-Za-z0-9]+$/)
    // The one Deny: callers may not write the deployed code or the stack record.
    expect(statement.Effect).toBe(statement.Sid === 'DeployedCodeIsTheDeployers' ? 'Deny' : 'Allow')
    expect(statement.Action.every((action) => /^[a-z0-9]+:[A-Za-z]+$/.test(action))).toBe(true)
    // Least privilege: every statement names its resources; no wildcard service or account.
    for (const resource of [statement.Resource ?? []].flat()) {
      // The one read-only action AWS allows only on "*".
      if (statement.Action.join() === 'lambda:GetAccountSettings') {
        expect(resource).toBe('*')
        continue
      }
      expect(resource).toMatch(/^arn:aws:(s3|iam|lambda|states|cloudwatch|logs|events):/)
      expect(resource).not.toMatch(/^arn:aws:[a-z0-9]+:[^:]*:\*|^\*$/)
    }
    expect(statement.Resource).toBeDefined()
  }
}

describe('engine lambda policies', () => {
  it('user: every action deploy and the render commands send, scoped to the stack; iam:PassRole only for its roles and their services', async () => {
    const document = await policy('user')
    assertIamShape(document)
    const actions = new Set(document.Statement.flatMap((statement) => statement.Action))
    for (const action of [...DEPLOY_ACTIONS, ...CALLER_ACTIONS]) expect(actions.has(action), action).toBe(true)
    const passRole = document.Statement.filter((statement) => statement.Action.includes('iam:PassRole'))
    expect(passRole.map((statement) => [statement.Resource, statement.Condition])).toEqual([
      [`arn:aws:iam::${ACCOUNT}:role/engine-render-function`, {StringEquals: {'iam:PassedToService': 'lambda.amazonaws.com'}}],
      [`arn:aws:iam::${ACCOUNT}:role/engine-render-state-machine`, {StringEquals: {'iam:PassedToService': 'states.amazonaws.com'}}],
    ])
    expect(JSON.stringify(document)).toContain('arn:aws:s3:::engine-render-123456789012-eu-west-1/*')
    expect(document.Statement.find((statement) => statement.Sid === 'ExecutionEndRule')?.Resource).toBe(`arn:aws:events:eu-west-1:${ACCOUNT}:rule/engine-render-execution-ended`)
    expect(document.Statement.map((statement) => statement.Sid)).not.toContain('OutputBucketLifecycle')
    // With --output-bucket: deploy reads and writes that bucket's lifecycle rules (the --delete-after ones beside the owner's).
    const withOutputs = await policy('user', '--output-bucket', 'client-videos')
    expect(withOutputs.Statement.find((statement) => statement.Sid === 'OutputBucketLifecycle')).toEqual({
      Sid: 'OutputBucketLifecycle',
      Effect: 'Allow',
      // Merged with the caller's listing of the same bucket: one statement per set of resources.
      Action: ['s3:GetLifecycleConfiguration', 's3:PutLifecycleConfiguration', 's3:ListBucket'],
      Resource: ['arn:aws:s3:::client-videos'],
    })
  })

  it('role: only the bucket, the workflows (render and batch) and invoking the function of the named stack, nothing of IAM or deploy', async () => {
    const document = await policy('role', '--name', 'videos', '--bucket-name', 'my-renders')
    assertIamShape(document)
    const actions = document.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) => statement.Action)
    for (const action of CALLER_ACTIONS) expect(actions).toContain(action)
    expect(actions.some((action) => /^(iam|cloudwatch):/.test(action))).toBe(false)
    expect(actions.filter((action) => action.startsWith('lambda:'))).toEqual(['lambda:InvokeFunction'])
    // The function and its versions (a still goes through the live alias).
    expect(document.Statement.find((statement) => statement.Sid === 'RenderStills')?.Resource).toEqual([`arn:aws:lambda:eu-west-1:${ACCOUNT}:function:videos`, `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:videos:*`])
    // An application's role cannot replace the code deploy publishes, nor the stack record.
    expect(document.Statement.at(-1)).toEqual({
      Sid: 'DeployedCodeIsTheDeployers',
      Effect: 'Deny',
      Action: ['s3:PutObject', 's3:DeleteObject'],
      Resource: ['arn:aws:s3:::my-renders/deploy/*', 'arn:aws:s3:::my-renders/engine-stack.json'],
    })
    expect(document.Statement.find((statement) => statement.Sid === 'StartRenders')?.Resource).toEqual([
      `arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:videos`,
      `arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:videos-batch`,
    ])
    expect(document.Statement.find((statement) => statement.Sid === 'BatchCounts')?.Resource).toEqual([`arn:aws:states:eu-west-1:${ACCOUNT}:mapRun:videos-batch/*`, `arn:aws:states:eu-west-1:${ACCOUNT}:mapRun:videos/*`])
    expect(document.Statement.find((statement) => statement.Sid === 'SitesAndOutputs')?.Resource).toBe('arn:aws:s3:::my-renders/*')
  })

  it('a malformed account id is refused with the way to find yours', async () => {
    const result = await runCli(['lambda', 'policies', 'user', '--account-id', '12345'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/--account-id: "12345" is not a 12-digit AWS account id; `aws sts get-caller-identity` prints yours/)
    const kind = await runCli(['lambda', 'policies', 'admin', '--account-id', ACCOUNT])
    expect(kind.code).not.toBe(0)
  })
})
