import {
  AttachUserPolicyCommand,
  CreatePolicyCommand,
  CreatePolicyVersionCommand,
  DeletePolicyVersionCommand,
  ListPolicyVersionsCommand,
  type IAMClient,
} from '@aws-sdk/client-iam'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {assertPolicyFits, POLICY_PLACEMENT} from './policy-quotas.js'
import type {ScopedPolicyDocument} from './iam-policies.js'

/** IAM keeps at most five versions of a managed policy; the oldest non-default one makes room. */
const MAX_POLICY_VERSIONS = 5

export interface AttachDeployerPolicyOptions {
  iam: IAMClient
  accountId: string
  /** The stack's name: the policy is `<name>-deployer`. */
  stackName: string
  document: ScopedPolicyDocument
  /** The IAM user to attach it to. */
  userName: string
}

export interface AttachedPolicy {
  policyArn: string
  /** `created`: a new policy; `updated`: a new default version of the existing one. */
  outcome: 'created' | 'updated'
  userName: string
}

/**
 * Creates the deployer's customer-managed policy (or makes this document its new default version,
 * so running it again after a flag change is safe) and attaches it to the user. A managed policy
 * because the document passes the 2,048 characters all of a user's inline policies may have.
 */
export async function attachDeployerPolicy(options: AttachDeployerPolicyOptions): Promise<AttachedPolicy> {
  const {iam, accountId, stackName, document, userName} = options
  assertPolicyFits(document, POLICY_PLACEMENT.deployer, 'the deployer policy')
  const policyName = `${stackName}-deployer`
  const policyArn = `arn:aws:iam::${accountId}:policy/${policyName}`
  const text = JSON.stringify(document)
  const outcome = await iam
    .send(new CreatePolicyCommand({PolicyName: policyName, PolicyDocument: text, Description: `engine lambda deploy and render for the stack ${stackName}`}))
    .then(
      () => 'created' as const,
      async (error: Error) => {
        if (error.name !== 'EntityAlreadyExists' && error.name !== 'EntityAlreadyExistsException') throw error
        await newDefaultVersion(iam, policyArn, text)
        return 'updated' as const
      },
    )
  await iam.send(new AttachUserPolicyCommand({UserName: userName, PolicyArn: policyArn}))
  return {policyArn, outcome, userName}
}

async function newDefaultVersion(iam: IAMClient, policyArn: string, text: string): Promise<void> {
  const {Versions = []} = await iam.send(new ListPolicyVersionsCommand({PolicyArn: policyArn}))
  if (Versions.length >= MAX_POLICY_VERSIONS) {
    const oldest = Versions.filter((version) => !version.IsDefaultVersion).sort((a, b) => (a.CreateDate?.getTime() ?? 0) - (b.CreateDate?.getTime() ?? 0))[0]
    if (oldest?.VersionId) await iam.send(new DeletePolicyVersionCommand({PolicyArn: policyArn, VersionId: oldest.VersionId}))
  }
  await iam.send(new CreatePolicyVersionCommand({PolicyArn: policyArn, PolicyDocument: text, SetAsDefault: true}))
}

/**
 * The user a caller's ARN names (`arn:aws:iam::<account>:user/<path/>name`); a role or the root
 * user has none, and then `--user` must say whom to attach the policy to.
 */
export function userNameOf(callerArn: string): string {
  const match = /^arn:aws[a-z-]*:iam::\d{12}:user\/(?:.*\/)?([\w+=,.@-]+)$/.exec(callerArn)
  if (match) return match[1]!
  throw new EngineError('INVALID_FLAG', `--user: the credentials in use are ${callerArn}, not an IAM user; pass --user NAME to attach the deployer policy to that user`, {
    field: 'user',
    callerArn,
  })
}
