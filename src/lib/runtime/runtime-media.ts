/**
 * What the in-page runtime is told about one `<video>`/`<audio>` element (by its position among
 * the page's `video, audio` elements once its scripts ran). Plain JSON inside RuntimeConfig.
 */
export interface RuntimeMedia {
  index: number
  /** Probed length of the source in seconds: a clip without `data-duration` lasts for the rest of it. */
  sourceSeconds: number
  /** The source's frames, extracted ahead of the render; the page shows them instead of decoding video. */
  frames?: RuntimeVideoFrames
}

export interface RuntimeVideoFrames {
  /** URL of the directory holding `000000.<extension>`, `000001.<extension>`, ... */
  directoryUrl: string
  extension: 'jpg' | 'png'
  count: number
  /** Frames per second of the extracted sequence: frame i shows source time i / fps. */
  fps: number
}

/** What `__engine.mediaElements()` reports for each `video, audio` element of the live page. */
export interface PageMediaElement {
  index: number
  tag: 'video' | 'audio'
  /** e.g. `<video id="intro">` */
  element: string
  /** Absolute URL of the source as the page resolved it; null when the element has none. */
  src: string | null
  /** Clip start on the composition timeline, seconds. */
  start: number
  /** Clip end; null when open (no `data-duration` and no known source length). */
  end: number | null
  /** The element carries `data-duration` (else its length comes from the source). */
  hasDuration: boolean
  playbackStart: number
  rate: number
  volume: number
  hasAudio: boolean
  colorGrading: string | null
  /** Variables of the composition the element belongs to (for `$name` in `data-color-grading`). */
  variables: Record<string, unknown>
}

/** Frame file name inside RuntimeVideoFrames.directoryUrl. */
export function frameFileName(index: number, extension: string): string {
  return `${String(index).padStart(6, '0')}.${extension}`
}
