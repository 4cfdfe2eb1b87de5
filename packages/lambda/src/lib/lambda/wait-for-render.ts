import {getRenderProgress, type ProgressOptions, type RenderProgress} from './render-progress.js'

export interface WaitOptions extends ProgressOptions {
  pollMs?: number
  onProgress?: (progress: RenderProgress) => void
  signal?: AbortSignal
}

/** Polls progress until the execution leaves RUNNING; returns the final report (failed ones too). */
export async function waitForRender(options: WaitOptions): Promise<RenderProgress> {
  const pollMs = options.pollMs ?? 2000
  for (;;) {
    options.signal?.throwIfAborted()
    const progress = await getRenderProgress(options)
    options.onProgress?.(progress)
    if (progress.status !== 'RUNNING') return progress
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}
