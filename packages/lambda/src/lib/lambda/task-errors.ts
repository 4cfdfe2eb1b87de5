import {isEngineError, toEngineError, type ErrorCode, type ErrorJson} from 'html-video-engine/internal/lib/errors/engine-error.js'

/** Error name (Lambda errorType) of failures worth another attempt; the state machine retries only these. */
export const RETRYABLE_TASK_ERROR = 'Engine.Retryable'
/** Prefix of deterministic failures: `Engine.<CODE>`, e.g. `Engine.COMPOSITION_INVALID`. Never retried. */
export const TASK_ERROR_PREFIX = 'Engine.'

const RETRYABLE_ENGINE_CODES: readonly ErrorCode[] = ['BROWSER_FAILED', 'PAGE_TIMEOUT']
const FLAKY_MESSAGE =
  /target closed|session closed|page crashed|browser (has )?disconnected|frame was detached|zygote|error while loading shared libraries|cannot open shared object|SIGKILL|was killed|socket hang up|ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN/i
const FLAKY_AWS_NAMES = new Set([
  'InternalError',
  'ServiceUnavailable',
  'SlowDown',
  'RequestTimeout',
  'RequestTimeoutException',
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'TimeoutError',
])

/**
 * The error a Lambda task fails with. Its `name` becomes the Step Functions error name, which the
 * state machine's Retry matches; the message is the EngineError as JSON so that progress can show
 * the original code and text.
 */
export class TaskError extends Error {
  constructor(
    name: string,
    readonly engineError: TaskFailure,
  ) {
    super(JSON.stringify(engineError))
    this.name = name
  }
}

/** What a failed task reports: the EngineError, and where it happened when known. */
export interface TaskFailure extends ErrorJson {
  /** The chunk whose render failed. */
  chunk?: number
  /** The function's CloudWatch log stream for that invocation. */
  logStream?: string
}

export function toTaskError(error: unknown, where: {chunk?: number; logStream?: string} = {}): TaskError {
  const engineError = toEngineError(error)
  const located = Object.fromEntries(Object.entries(where).filter(([, value]) => value !== undefined))
  return new TaskError(isFlaky(error) ? RETRYABLE_TASK_ERROR : TASK_ERROR_PREFIX + engineError.code, {...engineError.toJSON(), ...located})
}

/**
 * Known-flaky failures only: the browser crashing or going away, page and network timeouts, S3 or
 * Lambda internal errors and throttling. A deterministic failure (bad composition, bad option,
 * encoder refusing the input) would fail again identically, so it is never retried.
 */
export function isFlaky(error: unknown): boolean {
  if (isEngineError(error)) return RETRYABLE_ENGINE_CODES.includes(error.code) || (error.code === 'INTERNAL' && isFlaky(error.cause))
  if (!(error instanceof Error)) return false
  const aws = error as Error & {$retryable?: unknown; $metadata?: {httpStatusCode?: number}; code?: string}
  if (aws.$retryable) return true
  if (FLAKY_AWS_NAMES.has(aws.name)) return true
  if ((aws.$metadata?.httpStatusCode ?? 0) >= 500) return true
  return FLAKY_MESSAGE.test(`${aws.code ?? ''} ${aws.message}`)
}

export const CHUNK_TIMEOUT_FIX =
  'a task ran into the 15-minute function cap: reduce --chunk-size, lower --target-chunk-frames, or deploy with more --memory'

/** Reads back the EngineError a task failed with, from a Step Functions `error` and `cause`. */
export function parseTaskCause(error: string | undefined, cause: string | undefined): TaskFailure | undefined {
  if (!error && !cause) return undefined
  if (error === 'States.Timeout' || error === 'Sandbox.Timedout' || /Task timed out after/.test(cause ?? '')) {
    return {code: 'INTERNAL', message: `${CHUNK_TIMEOUT_FIX} (${[error, cause].filter(Boolean).join(': ')})`}
  }
  for (const text of [cause, tryParse(cause)?.errorMessage]) {
    const parsed = tryParse(typeof text === 'string' ? text : undefined)
    if (parsed && typeof parsed.code === 'string' && typeof parsed.message === 'string') return parsed as unknown as TaskFailure
  }
  return {code: 'INTERNAL', message: [error, cause].filter(Boolean).join(': ')}
}

/** The JSON object `text` holds, or undefined. */
export function tryParse(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
