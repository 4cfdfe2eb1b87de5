import type {S3Client} from '@aws-sdk/client-s3'

/** What every action gets from the handler. */
export interface ActionContext {
  s3: S3Client
  /** The function's memory, for the cost estimate (Lambda: context.memoryLimitInMB). */
  memoryMb: number
  /** When the invocation began (performance.now()). */
  startedAt: number
}

export function elapsedMs(context: ActionContext): number {
  return Math.round(performance.now() - context.startedAt)
}
