import {testMilliseconds} from 'html-video-engine/internal/lib/trace/test-milliseconds.js'
import {getRenderProgress, type ProgressOptions, type RenderProgress} from './render-progress.js'

export interface WaitOptions extends ProgressOptions {
  pollMs?: number
  onProgress?: (progress: RenderProgress) => void
  signal?: AbortSignal
}

/**
 * Test-only: the poll interval of `engine lambda render --wait`, in ms. The test suite sets it
 * (test/lambda/support.ts) so that each of its many waited renders against the local stack does not
 * sit out up to 2 s after its end; users have no reason to, and the default stays 2 s.
 */
export const WAIT_POLL_ENV = 'ENGINE_TEST_WAIT_POLL_MS'

function defaultPollMs(): number {
  return testMilliseconds(WAIT_POLL_ENV, 2000, 1)
}

/** Polls progress until the execution leaves RUNNING; returns the final report (failed ones too). */
export async function waitForRender(options: WaitOptions): Promise<RenderProgress> {
  const pollMs = options.pollMs ?? defaultPollMs()
  for (;;) {
    options.signal?.throwIfAborted()
    const progress = await getRenderProgress(options)
    options.onProgress?.(progress)
    if (progress.status !== 'RUNNING') return progress
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}
