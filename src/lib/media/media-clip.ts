/**
 * A `<video>` or `<audio>` element as the render uses it: its source on this machine and where it
 * sits on the composition's timeline. Plain JSON, so a distributed render can carry it in its plan.
 */
export interface MediaClip {
  /** Position among the page's `video, audio` elements in document order, after its scripts ran. */
  index: number
  tag: 'video' | 'audio'
  /** How error messages name the element, e.g. `<video id="intro">`. */
  element: string
  /** Local file the source was read from (a downloaded copy for an http(s) URL). */
  path: string
  /** Seconds on the composition timeline where the clip starts and ends. */
  start: number
  end: number
  /** Seconds into the source where the clip begins (`data-playback-start`). */
  playbackStart: number
  /** Source seconds per composition second (`data-playback-rate`). */
  rate: number
  /** Linear gain (`data-volume`). */
  volume: number
  /** The clip contributes sound: every `<audio>`, and a `<video data-has-audio>`. */
  audible: boolean
  /** Channels of the source's audio (0 without): a mono source is played in both channels. */
  channels: number
}

/** The 48 kHz sample rate the whole track is mixed and encoded at. */
export const AUDIO_SAMPLE_RATE = 48_000
