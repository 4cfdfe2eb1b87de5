import type {BucketObjects} from './s3-objects.js'

/** `engine-stack.json` at the bucket's root: how the stack was deployed, for commands that plan load. */
export const STACK_RECORD_KEY = 'engine-stack.json'

export interface StackRecord {
  functionName: string
  stateMachineArn: string
  region: string
  memoryMb: number
  /** Reserved concurrency of the function; absent when it draws from the account's shared pool. */
  reservedConcurrency?: number
  deployedAt: string
  /** `local` for `engine lambda local`. */
  kind: 'aws' | 'local'
}

/** The record, or undefined when it cannot be read (older stack, no permission): it only informs warnings. */
export async function readStackRecord(bucket: BucketObjects): Promise<StackRecord | undefined> {
  return bucket.getJson<StackRecord>(STACK_RECORD_KEY).catch(() => undefined)
}
