import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

/**
 * IAM's size quotas for policy documents, in characters with whitespace not counted (IAM's own
 * rule). A user's inline policies together may not pass 2,048 characters, which the deployer's
 * policy does, so it goes in a customer-managed policy (6,144); a role's inline policies together
 * may take 10,240.
 */
export const IAM_POLICY_QUOTAS = {
  userInlineTotal: 2048,
  managed: 6144,
  roleInlineTotal: 10240,
} as const
export type PolicyPlacement = keyof typeof IAM_POLICY_QUOTAS

/** Where each policy this package prints or writes belongs, and so which quota it must fit. */
export const POLICY_PLACEMENT = {
  /** `lambda policies user`: attached to the user who deploys (`--create` does it). */
  deployer: 'managed',
  /** `lambda policies role`: an application's role (or a user, as a managed policy). */
  caller: 'managed',
  /** The two roles deploy creates, one inline policy each. */
  stackRole: 'roleInlineTotal',
} as const satisfies Record<string, PolicyPlacement>

/** The size IAM counts: the document's characters less whitespace. */
export function policySize(document: unknown): number {
  return JSON.stringify(document).replace(/\s/g, '').length
}

/** A policy over its quota is refused by IAM when attached; say so before, with the size and the way out. */
export function assertPolicyFits(document: unknown, placement: PolicyPlacement, what: string): void {
  const size = policySize(document)
  const quota = IAM_POLICY_QUOTAS[placement]
  if (size <= quota) return
  throw new EngineError(
    'INVALID_FLAG',
    `${what} is ${size} characters (whitespace not counted), over IAM's ${quota} for ${placement === 'managed' ? 'a customer-managed policy' : placement === 'roleInlineTotal' ? "a role's inline policies" : "a user's inline policies"}; ` +
      'use a shorter --name or --bucket-name, or fewer --output-bucket',
    {size, quota, placement},
  )
}
