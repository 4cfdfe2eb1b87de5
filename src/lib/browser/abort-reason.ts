import {EngineError} from '../errors/engine-error.js'

/** The error a cancelled operation throws: the caller's EngineError reason, else CANCELLED. */
export function abortReason(signal: AbortSignal): EngineError {
  return signal.reason instanceof EngineError ? signal.reason : new EngineError('CANCELLED', 'the render was cancelled')
}
