import type {Fps} from '../plan/fps.js'
import type {FrameRange} from '../plan/render-plan.js'
import type {ClipWindow} from './text-check-protocol.js'

/**
 * The frames the text check looks at, in order: each clip's first, middle and last frame (where
 * text enters, rests and leaves) and at least one frame a second, plus the first and last frame of
 * what is rendered; all within `range` (`--frames`, or the whole composition).
 */
export function planTextCheckFrames(clips: readonly ClipWindow[], fps: Fps, range: FrameRange): number[] {
  const last = range.end - 1
  if (last < range.start) return []
  // Frame i shows t = i / fps: the first frame at or after t, and the last one before t.
  const firstAt = (seconds: number) => Math.ceil((seconds * fps.num) / fps.den - 1e-9)
  const lastBefore = (seconds: number) => firstAt(seconds) - 1
  const frames = new Set<number>([range.start, last])
  const perSecond = Math.max(1, Math.floor(fps.num / fps.den))
  for (let frame = range.start; frame <= last; frame += perSecond) frames.add(frame)
  for (const clip of clips) {
    const start = Math.max(range.start, firstAt(clip.start))
    const end = Math.min(last, clip.end === null ? last : lastBefore(clip.end))
    if (end < start) continue
    frames.add(start).add(Math.floor((start + end) / 2)).add(end)
  }
  return [...frames].sort((a, b) => a - b)
}
