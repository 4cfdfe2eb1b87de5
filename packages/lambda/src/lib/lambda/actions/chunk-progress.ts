import type {BucketObjects} from '../s3-objects.js'
import {chunkProgressKey} from '../storage-keys.js'

/** `scratch/<renderId>/progress/chunk-NNNNN.json` */
export interface ChunkProgressRecord {
  framesDone: number
}

/**
 * A chunk takes minutes at full size, and the execution history only says when it has finished.
 * So a running chunk rewrites its frame count now and then: the first frame at once (the chunk is
 * under way), then at most once per interval, one request at a time, so that a chunk of hundreds
 * of frames costs a handful of PUTs.
 */
export const CHUNK_PROGRESS_INTERVAL_MS = 2000

export class ChunkProgressReporter {
  private framesDone = 0
  private lastSentAt = -Infinity
  private sending: Promise<void> | undefined
  private closed = false

  constructor(
    private readonly bucket: Pick<BucketObjects, 'putJson'>,
    private readonly key: string,
    private readonly now: () => number = Date.now,
  ) {}

  static forChunk(bucket: BucketObjects, renderId: string, index: number): ChunkProgressReporter {
    return new ChunkProgressReporter(bucket, chunkProgressKey(renderId, index))
  }

  frameDone(): void {
    this.framesDone++
    if (this.closed || this.sending || this.now() - this.lastSentAt < CHUNK_PROGRESS_INTERVAL_MS) return
    this.lastSentAt = this.now()
    const record: ChunkProgressRecord = {framesDone: this.framesDone}
    this.sending = this.bucket
      .putJson(this.key, record)
      // Progress is a courtesy to whoever polls: a failed write must not fail the chunk's frames.
      .catch(() => {})
      .finally(() => {
        this.sending = undefined
      })
  }

  /** Waits for a write in flight, so that none lands after the function has returned. */
  async settle(): Promise<void> {
    await this.sending
  }

  /**
   * Starts no more writes, and waits for the one in flight: nothing this chunk writes may land after
   * its last look for the stop marker, or a stopped render would keep that write in its scratch
   * (see stopRender). Called once the chunk's frames are done, so that a frame handed over late by
   * a stopping capture cannot start one.
   */
  async close(): Promise<void> {
    this.closed = true
    await this.sending
  }
}
