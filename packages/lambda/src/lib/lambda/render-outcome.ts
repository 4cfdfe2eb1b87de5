import type {RowWarning} from 'html-video-engine/internal/lib/batch/batch-manifest.js'

/**
 * What a render workflow's execution ends with, whichever way it ended well: assembled
 * (`succeeded`), copied from the bucket's render cache by the plan step (`cached`), or stopped by
 * its check pass before any chunk (`skipped`). Every field is present
 * (null when it does not apply), so that the batch workflow can copy it into the row's record
 * without a path that may be missing.
 */
export interface RenderOutcome {
  status: 'succeeded' | 'cached' | 'skipped'
  outputKey: string
  /** The output's bucket when it is not the render's (`config.outputBucket`). */
  outputBucket: string | null
  bytes: number | null
  totalFrames: number | null
  durationSeconds: number | null
  /** sha256 of the output file (null for a frame prefix, or when nothing was written). */
  sha256: string | null
  posterKey: string | null
  /** The check pass's findings (`text-overflow`) and the pages' errors: what did not stop the render but wants a look. */
  warnings: RowWarning[]
  skippedReason: string | null
  /** From the plan to the end. */
  renderMs: number | null
}

export function skippedOutcome(outputKey: string, warnings: RowWarning[], skippedReason: string, renderMs: number): RenderOutcome {
  return {status: 'skipped', outputKey, outputBucket: null, bytes: null, totalFrames: null, durationSeconds: null, sha256: null, posterKey: null, warnings, skippedReason, renderMs}
}
