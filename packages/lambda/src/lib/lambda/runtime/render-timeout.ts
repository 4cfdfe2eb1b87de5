import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

/** Lambda's own cap on one invocation: no task of a render runs longer. */
const TASK_CAP_SECONDS = 900
/** The longest `--timeout` a render may ask for. */
export const MAX_RENDER_TIMEOUT_SECONDS = 24 * 3600
export const MIN_RENDER_TIMEOUT_SECONDS = 5
/**
 * The state machine's own execution timeout: a backstop above any render's deadline, for an
 * execution that no task is left to stop (its end is still handled: see execution-end-rule.ts).
 */
export const EXECUTION_TIMEOUT_SECONDS = MAX_RENDER_TIMEOUT_SECONDS + TASK_CAP_SECONDS

/**
 * The deadline a render gets when it names none: the longest its plan can legitimately take,
 * with every task at Lambda's 15-minute cap — the plan step, each wave of chunks (the chunks
 * run `maxParallelChunks` at a time), one more wave for retried chunks, and assemble — within
 * MAX_RENDER_TIMEOUT_SECONDS. A render of 16 chunks at 16 at once gets 1 h; 1,000 chunks at 16,
 * 16.5 h (the fixed one-hour execution timeout used to end such a render half-way).
 */
export function defaultTimeoutSeconds(chunkCount: number, maxParallelChunks: number): number {
  const waves = Math.ceil(chunkCount / Math.max(1, Math.min(maxParallelChunks, chunkCount)))
  return Math.min(MAX_RENDER_TIMEOUT_SECONDS, TASK_CAP_SECONDS * (waves + 3))
}

/** The render's deadline: `timeoutSeconds` from when its execution started. */
export function renderDeadline(executionStartedAt: string | undefined, timeoutSeconds: number, now = Date.now()): string {
  const started = executionStartedAt === undefined ? Number.NaN : Date.parse(executionStartedAt)
  return new Date((Number.isFinite(started) ? started : now) + timeoutSeconds * 1000).toISOString()
}

const UNIT_SECONDS: Record<string, number> = {s: 1, m: 60, h: 3600}

/** `--timeout`: seconds, or a number with s, m or h (90s, 30m, 2h), within the allowed range. */
export function parseTimeout(text: string, field = '--timeout'): number {
  const match = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text.trim())
  const seconds = match ? Math.round(Number(match[1]) * UNIT_SECONDS[match[2] || 's']) : Number.NaN
  if (!Number.isFinite(seconds) || seconds < MIN_RENDER_TIMEOUT_SECONDS || seconds > MAX_RENDER_TIMEOUT_SECONDS) {
    throw new EngineError(
      'INVALID_FLAG',
      `${field}: "${text}" is not a render timeout; write seconds or a number with s, m or h (90s, 30m, 2h), from ${MIN_RENDER_TIMEOUT_SECONDS}s to ${MAX_RENDER_TIMEOUT_SECONDS / 3600}h`,
      {field, value: text},
    )
  }
  return seconds
}
