import {GetBucketLifecycleConfigurationCommand, PutBucketLifecycleConfigurationCommand, type LifecycleRule, type S3Client} from '@aws-sdk/client-s3'
import {DELETE_AFTER_TAG} from '../output-settings.js'

/**
 * A bucket's lifecycle configuration is one document: a PutBucketLifecycleConfiguration replaces
 * every rule in it. So deploy reads it, keeps every rule whose ID is not one of ours, puts ours
 * (by their fixed IDs: a second deploy refreshes them instead of adding copies) after them, and
 * writes the whole back. The render bucket is the stack's own; an `--output-bucket` is someone
 * else's, whose rules must survive.
 */

/** What deploy found or did on one bucket. */
export type LifecycleOutcome =
  | {status: 'written'}
  /** Deploy could read the rules but not write them; `present` when ours were there already (added by hand). */
  | {status: 'unwritable'; present: boolean; reason: string}
  | {status: 'unreadable'; reason: string}

/** The owner's rules, then ours: a rule is ours when its ID is one of ours. */
export function mergeLifecycleRules(existing: readonly LifecycleRule[], ours: readonly LifecycleRule[]): LifecycleRule[] {
  const ourIds = new Set(ours.map((rule) => rule.ID))
  const kept = existing.filter((rule) => !ourIds.has(rule.ID)).map(withFilter)
  return [...kept, ...ours]
}

/**
 * A rule in the old form (a `Prefix` beside `Status`, no `Filter`) becomes the same rule with
 * `Filter: {Prefix}`: S3 refuses a configuration that mixes the two forms, and ours use `Filter`.
 */
function withFilter(rule: LifecycleRule): LifecycleRule {
  if (rule.Filter !== undefined || rule.Prefix === undefined) return rule
  const {Prefix, ...rest} = rule
  return {...rest, Filter: {Prefix}}
}

/** The bucket's rules: none when it has no configuration (S3 answers NoSuchLifecycleConfiguration). */
export async function readLifecycleRules(s3: S3Client, bucket: string): Promise<{rules: LifecycleRule[]; transitionDefault?: string}> {
  try {
    const found = await s3.send(new GetBucketLifecycleConfigurationCommand({Bucket: bucket}))
    return {rules: found.Rules ?? [], transitionDefault: found.TransitionDefaultMinimumObjectSize}
  } catch (error) {
    if ((error as Error).name === 'NoSuchLifecycleConfiguration') return {rules: []}
    throw error
  }
}

/** Reads, merges and writes back; throws what S3 answered (the render bucket's deploy fails on it). */
export async function putOurLifecycleRules(s3: S3Client, bucket: string, ours: readonly LifecycleRule[]): Promise<void> {
  const {rules, transitionDefault} = await readLifecycleRules(s3, bucket)
  await s3.send(
    new PutBucketLifecycleConfigurationCommand({
      Bucket: bucket,
      LifecycleConfiguration: {Rules: mergeLifecycleRules(rules, ours)},
      // Kept as the owner set it: left out, S3 would reset it to its default.
      ...(transitionDefault !== undefined && {TransitionDefaultMinimumObjectSize: transitionDefault as never}),
    }),
  )
}

/**
 * The same on a bucket deploy does not own: a refusal (no permission, a bucket elsewhere) is an
 * outcome to report, not a failed deploy.
 */
export async function tryOurLifecycleRules(s3: S3Client, bucket: string, ours: readonly LifecycleRule[]): Promise<LifecycleOutcome> {
  let existing: LifecycleRule[]
  try {
    existing = (await readLifecycleRules(s3, bucket)).rules
  } catch (error) {
    return {status: 'unreadable', reason: reasonOf(error)}
  }
  try {
    await putOurLifecycleRules(s3, bucket, ours)
    return {status: 'written'}
  } catch (error) {
    const ids = new Set(existing.map((rule) => rule.ID))
    return {status: 'unwritable', present: ours.every((rule) => ids.has(rule.ID)), reason: reasonOf(error)}
  }
}

function reasonOf(error: unknown): string {
  const {name, message} = error as {name?: string; message?: string}
  return name && message && !message.includes(name) ? `${name}: ${message}` : (message ?? name ?? String(error))
}

/** The rules as a person adds them in the console or with the CLI, for a notice. */
export function describeRules(rules: readonly LifecycleRule[]): string {
  return rules
    .map((rule) => {
      const tag = rule.Filter?.Tag
      const days = rule.Expiration?.Days
      return `${rule.ID} (objects tagged ${tag?.Key ?? DELETE_AFTER_TAG}=${tag?.Value}: expire ${days} day${days === 1 ? '' : 's'} after creation)`
    })
    .join(', ')
}
