/**
 * One error type for every front door (CLI, server, Lambda): a stable machine code, a message
 * written for the person who has to fix it, and structured detail for tools.
 */
export type ErrorCode =
  | 'INVALID_FLAG'
  | 'INVALID_CONFIG'
  | 'INVALID_VARIABLES'
  | 'STRICT_VARIABLES'
  | 'COMPOSITION_NOT_FOUND'
  | 'COMPOSITION_INVALID'
  | 'CAPTIONS_INVALID'
  | 'BROWSER_NOT_FOUND'
  | 'BROWSER_FAILED'
  | 'PAGE_ERROR'
  | 'PAGE_TIMEOUT'
  | 'TEXT_OVERFLOW'
  | 'FFMPEG_NOT_FOUND'
  | 'ENCODE_FAILED'
  | 'GPU_ENCODER_UNAVAILABLE'
  | 'MEDIA_NOT_FOUND'
  | 'MEDIA_FAILED'
  | 'REQUEST_BLOCKED'
  | 'DOWNLOAD_FAILED'
  | 'BATCH_PREFLIGHT'
  | 'BATCH_ROW_FAILED'
  | 'BATCH_CELL_TOO_LARGE'
  | 'BATCH_LINE_TOO_LONG'
  | 'BATCH_TOO_MANY_COLUMNS'
  | 'BATCH_EXISTS'
  | 'BATCH_MERGE'
  | 'CANCELLED'
  | 'TIMED_OUT'
  | 'ABORTED'
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'PATH_OUTSIDE_ROOT'
  | 'NOT_FOUND'
  | 'OUTPUT_NOT_READY'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'MISDIRECTED_REQUEST'
  | 'ORIGIN_NOT_ALLOWED'
  | 'LIMIT_EXCEEDED'
  | 'SERVER_RESPONSE_INVALID'
  | 'INVALID_STORAGE_KEY'
  | 'OUTPUT_NOT_WRITABLE'
  | 'OUTPUT_EXISTS'
  | 'NO_SPACE'
  | 'QUEUE_FULL'
  | 'SERVER_UNAVAILABLE'
  | 'PROFILE_UNAVAILABLE'
  | 'CONTAINER_UNAVAILABLE'
  | 'CONTAINER_FAILED'
  | 'BUNDLE_FAILED'
  | 'BUNDLE_TOO_LARGE'
  | 'DEPLOY_FAILED'
  | 'FONT_FAILED'
  | 'FONT_MISSING'
  | 'PLUGIN_FAILED'
  | 'UNKNOWN_COMMAND'
  | 'INTERNAL'

export interface ErrorJson {
  code: ErrorCode
  message: string
  details?: unknown
}

export class EngineError extends Error {
  readonly code: ErrorCode
  readonly details?: unknown

  constructor(code: ErrorCode, message: string, details?: unknown, options?: {cause?: unknown}) {
    super(message, options)
    this.name = 'EngineError'
    this.code = code
    this.details = details
  }

  toJSON(): ErrorJson {
    return this.details === undefined
      ? {code: this.code, message: this.message}
      : {code: this.code, message: this.message, details: this.details}
  }
}

/** Wraps anything thrown into an EngineError so that callers present one shape. */
export function toEngineError(error: unknown): EngineError {
  if (error instanceof EngineError) return error
  if (error instanceof Error) return new EngineError('INTERNAL', error.message, undefined, {cause: error})
  return new EngineError('INTERNAL', String(error))
}

export function isEngineError(error: unknown, code?: ErrorCode): error is EngineError {
  return error instanceof EngineError && (code === undefined || error.code === code)
}
