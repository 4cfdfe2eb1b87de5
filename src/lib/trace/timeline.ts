import {channel} from 'node:diagnostics_channel'

/**
 * The render's timeline: spans of work (a seek, a begin-frame, a wait for the encoder, a segment's
 * drain…) published on this diagnostics channel for profilers (`bench/timeline.mjs`). Nothing is
 * measured or allocated while nobody subscribes.
 */
export const TIMELINE_CHANNEL = 'engine:timeline'

export type TimelineStage =
  /** A browser process started for a worker (a pooled one costs nothing here). */
  | 'browser-launch'
  /** A page opened, loaded and ready (`worker`, `page`). */
  | 'page-load'
  /** Of a page-load, from the navigation's commit to `__engine.ready()`: the document's load, fonts, images and holds (`worker`, `page`). */
  | 'page-ready'
  /** The page moved to a frame's time (`frame`, `page`). */
  | 'seek'
  /** A frame's capture on its page, from asking for it to its image in Node, turn at the begin-frame gate included (`frame`, `page`). */
  | 'capture'
  /** One begin-frame the browser drew, from sending it to its answer: drawing, screenshot encode and transfer (`page`, `screenshot`). */
  | 'begin-frame'
  /** The capture loop waited for the encoder to take the previous image (`frame`). */
  | 'encoder-wait'
  /** An encoder started for a segment (`segment`). */
  | 'encoder-start'
  /** A segment's encoder finished its last frames after the last image (`segment`). */
  | 'segment-drain'
  /** A worker, its segment captured, waited for the previous segment's encoder to finish before capturing more (`segment`). */
  | 'segment-wait'
  /** The segments joined into the output file (with the audio mux), before its check. */
  | 'assemble'
  /** The joined file's frames counted against the plan, then renamed over the output. */
  | 'output-check'
  /** A batch row's manifest records and output hash, outside its render. */
  | 'row-bookkeeping'

export interface TimelineSpan {
  stage: TimelineStage
  /** `performance.now()` when the work began and ended, in ms. */
  start: number
  end: number
  /** The capture worker (one browser process) the span belongs to. */
  worker?: number
  /** The page of that worker (a worker may alternate frames between pages). */
  page?: number
  frame?: number
  segment?: number
  /** A capture that reused the previous image (the page reported no damage). */
  reused?: boolean
  /** Work that ended in an error. */
  failed?: boolean
  /** A begin-frame that asked for a screenshot. */
  screenshot?: boolean
}

type SpanFields = Omit<TimelineSpan, 'stage' | 'start' | 'end'>

const timeline = channel(TIMELINE_CHANNEL)

/** The start time of a span, or undefined when nobody listens (the span is then never published). */
export function spanStart(): number | undefined {
  return timeline.hasSubscribers ? performance.now() : undefined
}

/** Publishes a span begun at `start` (from spanStart) and ending now. */
export function endSpan(stage: TimelineStage, start: number | undefined, fields: SpanFields = {}): void {
  if (start === undefined || !timeline.hasSubscribers) return
  timeline.publish({stage, start, end: performance.now(), ...fields} satisfies TimelineSpan)
}

/** Runs `work` as one span of the timeline (published whether it succeeds or fails). */
export async function traceSpan<T>(stage: TimelineStage, fields: SpanFields, work: () => Promise<T>): Promise<T> {
  const start = spanStart()
  try {
    return await work()
  } finally {
    endSpan(stage, start, fields)
  }
}
