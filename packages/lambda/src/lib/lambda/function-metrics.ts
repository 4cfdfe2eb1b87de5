import type {ErrorCode} from 'html-video-engine/internal/lib/errors/engine-error.js'

/** The function's own CloudWatch metrics (Embedded Metric Format: a JSON log line, no API call or permission). */
export const ENGINE_METRICS_NAMESPACE = 'engine'
/** Invocations that failed on the composition or the request: the author's to fix, not the stack's. */
export const COMPOSITION_ERRORS_METRIC = 'CompositionErrors'
/** Chunks that stopped because their render was cancelled or failed elsewhere. */
export const STOPPED_METRIC = 'StoppedInvocations'

/** Failures that the same input would meet again anywhere: a page error, bad variables, missing media or fonts, a bad request. */
const COMPOSITION_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_FLAG',
  'INVALID_CONFIG',
  'INVALID_VARIABLES',
  'STRICT_VARIABLES',
  'COMPOSITION_NOT_FOUND',
  'COMPOSITION_INVALID',
  'PAGE_ERROR',
  'MEDIA_NOT_FOUND',
  'MEDIA_FAILED',
  'REQUEST_BLOCKED',
  'DOWNLOAD_FAILED',
  'FONT_MISSING',
  'LIMIT_EXCEEDED',
  'INVALID_REQUEST',
  'INVALID_STORAGE_KEY',
  'NOT_FOUND',
])

/** Codes a chunk stops with when its render ended elsewhere, or ran past its deadline. */
const STOP_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['CANCELLED', 'TIMED_OUT'])

/**
 * The EMF line that counts a failed invocation as a composition error or a stop, or undefined for
 * a fault (which only Lambda's own Errors metric counts). `function-faults` subtracts both.
 */
export function failureMetricLine(functionName: string, code: ErrorCode, now = Date.now()): string | undefined {
  const metric = COMPOSITION_CODES.has(code) ? COMPOSITION_ERRORS_METRIC : STOP_CODES.has(code) ? STOPPED_METRIC : undefined
  if (!metric) return undefined
  return JSON.stringify({
    _aws: {Timestamp: now, CloudWatchMetrics: [{Namespace: ENGINE_METRICS_NAMESPACE, Dimensions: [['FunctionName']], Metrics: [{Name: metric, Unit: 'Count'}]}]},
    FunctionName: functionName,
    ErrorCode: code,
    [metric]: 1,
  })
}
