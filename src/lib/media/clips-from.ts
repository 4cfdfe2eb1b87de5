import type {MediaClip} from './media-clip.js'

/**
 * The clips as heard from `offsetSeconds` of the composition on (`--frames` starting after frame
 * 0): every clip moves that much earlier and those already over are dropped. A clip now starting
 * before 0 is mixed from that far into its source, as for a negative `data-start`, so the range's
 * track is the full render's track cut at the offset.
 */
export function clipsFrom(clips: readonly MediaClip[], offsetSeconds: number): MediaClip[] {
  if (offsetSeconds === 0) return [...clips]
  return clips.filter((clip) => clip.end > offsetSeconds).map((clip) => ({...clip, start: clip.start - offsetSeconds, end: clip.end - offsetSeconds}))
}
