import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {createS3Client, type AwsClientOptions} from './aws-clients.js'
import {BucketObjects} from './s3-objects.js'

export type DeleteAfterRulesState = 'present' | 'missing' | 'unknown'

/** `engine-stack.json` at the bucket's root: how the stack was deployed, for commands that plan load. */
export const STACK_RECORD_KEY = 'engine-stack.json'

export interface StackRecord {
  functionName: string
  /** The version the workflows invoke (absent on the local stack and on stacks deployed before versions). */
  functionVersion?: string
  stateMachineArn: string
  region: string
  memoryMb: number
  /** x86_64 or arm64 (absent: x86_64). */
  arch?: 'x86_64' | 'arm64'
  /** Reserved concurrency of the function; absent when it draws from the account's shared pool. */
  reservedConcurrency?: number
  /** The account's concurrency left for unreserved functions when deployed; absent when it could not be read. */
  unreservedConcurrency?: number
  deployedAt: string
  /** `local` for `engine lambda local`. */
  kind: 'aws' | 'local'
  /** Buckets besides the render bucket the function may write outputs to (`deploy --output-bucket`). */
  outputBuckets?: string[]
  /**
   * Whether each output bucket deletes outputs tagged by --delete-after, as deploy left it:
   * `present` (deploy wrote the rules, or found them), `missing` (it may not add them), `unknown`
   * (it may not read the bucket's rules). Absent: deployed before deploy wrote them there.
   */
  deleteAfterRules?: Record<string, DeleteAfterRulesState>
  /** Formats the function renders (built-in and bundled plugins'); absent when unknown (deployed with --code). */
  formats?: string[]
}

/** The record, or undefined when it cannot be read (older stack, no permission): it only informs warnings. */
export async function readStackRecord(bucket: BucketObjects): Promise<StackRecord | undefined> {
  return bucket.getJson<StackRecord>(STACK_RECORD_KEY).catch(() => undefined)
}

/**
 * Refuses a format the deployed function cannot render (a plugin installed here after the deploy)
 * before anything is uploaded; a stack that does not record its formats is not checked.
 */
export async function assertDeployedFormat(options: AwsClientOptions & {bucketName: string; format: string}): Promise<void> {
  const stack = await readStackRecord(new BucketObjects(createS3Client(options), options.bucketName))
  const {format} = options
  if (!stack?.formats || stack.formats.includes(format)) return
  throw new EngineError(
    'INVALID_FLAG',
    `--format ${format}: the deployed function renders ${stack.formats.join(', ')}, not ${format}, which a plugin it was deployed without adds; run \`engine lambda deploy\` again here (the bundle carries the installed plugins)`,
    {format, formats: stack.formats},
  )
}
