/**
 * Takes one worker's images, in frame order, and turns them into that worker's segment. Its own
 * module so that the implementations (ffmpeg, image stream, frame files) and openSegmentEncoder,
 * which picks one, all depend on it rather than on each other.
 */
export interface SegmentEncoder {
  /** Resolves once the image is accepted; waits while too much is queued in front of ffmpeg. */
  write(image: Buffer): Promise<void>
  /** Finishes the segment; fails unless exactly one image per frame of the range was written. */
  end(): Promise<void>
  /** Stops at once (kills ffmpeg) and deletes what was written; resolves when that is done. */
  abort(): Promise<void>
}
