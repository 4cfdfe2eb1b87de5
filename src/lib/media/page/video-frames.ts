import type {ClipTiming} from '../../runtime/page/clip-timing.js'
import {frameFileName, type RuntimeMedia, type RuntimeVideoFrames} from '../../runtime/runtime-media.js'
import {mediaElementsOf, mediaStart, playbackOf} from './media-elements.js'

interface ShownVideo {
  element: HTMLVideoElement
  frames: RuntimeVideoFrames
  start: number
  playbackStart: number
  rate: number
  shown: string | undefined
}

/** Absorbs float error so that t = 1 s at 30 fps lands on source frame 30, not 29. */
const EPSILON = 1e-6
/** Decoded frames kept alive per video: the one shown and the one after it, fetched ahead. */
const KEPT_FRAMES = 3

/**
 * Shows each `<video>` as its pre-extracted frames: the element's own source is dropped (the page
 * never waits on a real decode) and its poster is set, per seek, to the frame for that time. The
 * poster keeps the element's layout (intrinsic size, object-fit, transforms, opacity) exactly as
 * the video would have it. A time past the source's end holds its last frame.
 */
export class VideoFrames {
  private videos: ShownVideo[] = []
  private readonly decoded = new Map<string, Promise<unknown>>()

  constructor(
    private readonly doc: Document,
    private readonly media: readonly RuntimeMedia[] | undefined,
  ) {}

  attach(timing: ClipTiming): void {
    const elements = mediaElementsOf(this.doc)
    this.videos = []
    for (const entry of this.media ?? []) {
      const element = elements[entry.index]
      if (!entry.frames || !(element instanceof HTMLVideoElement)) continue
      element.preload = 'none'
      element.removeAttribute('src')
      for (const source of Array.from(element.querySelectorAll('source'))) source.remove()
      element.load()
      this.videos.push({element, frames: entry.frames, start: mediaStart(element, timing).start, ...playbackOf(element), shown: undefined})
    }
  }

  /** Points every video at its frame for `seconds` and resolves once those frames are decoded and applied. */
  async seek(seconds: number): Promise<void> {
    const changes: Promise<void>[] = []
    for (const video of this.videos) {
      const index = this.frameIndex(video, seconds)
      const url = this.url(video, index)
      if (index + 1 < video.frames.count) void this.decode(this.url(video, index + 1))
      if (url === video.shown) continue
      changes.push(
        this.decode(url).then(() => {
          video.element.poster = url
          video.shown = url
        }),
      )
    }
    if (changes.length === 0) return
    await Promise.all(changes)
    this.forget()
    // The poster's image loader picks the (cached, decoded) image up in a task of its own.
    await nextTask()
  }

  private frameIndex(video: ShownVideo, seconds: number): number {
    const sourceSeconds = Math.max(0, seconds - video.start) * video.rate + video.playbackStart
    const index = Math.floor(sourceSeconds * video.frames.fps + EPSILON)
    return Math.min(video.frames.count - 1, Math.max(0, index))
  }

  private url(video: ShownVideo, index: number): string {
    return video.frames.directoryUrl + frameFileName(index, video.frames.extension)
  }

  private decode(url: string): Promise<unknown> {
    let decoded = this.decoded.get(url)
    if (!decoded) {
      const image = new Image()
      image.src = url
      // A frame that fails to decode shows as the browser shows a broken poster; the render goes on.
      decoded = image.decode().then(
        () => image,
        () => image,
      )
      this.decoded.set(url, decoded)
    }
    return decoded
  }

  private forget(): void {
    const limit = Math.max(KEPT_FRAMES, this.videos.length * KEPT_FRAMES)
    for (const url of this.decoded.keys()) {
      if (this.decoded.size <= limit) break
      if (!this.videos.some((video) => video.shown === url)) this.decoded.delete(url)
    }
  }
}

function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      resolve()
    }
    channel.port2.postMessage(null)
  })
}
