import type {ClipTiming} from '../../runtime/page/clip-timing.js'
import {INSTANCE_ATTRIBUTE} from '../../compose/runtime-instance.js'
import type {PageMediaElement, RuntimeMedia} from '../../runtime/runtime-media.js'

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

/** The page's media elements in document order: the index RuntimeMedia entries refer to. */
export function mediaElementsOf(doc: Document): HTMLMediaElement[] {
  return Array.from(doc.querySelectorAll<HTMLMediaElement>('video, audio'))
}

function numberAttribute(element: Element, names: string[], fallback: number): number {
  for (const name of names) {
    const raw = element.getAttribute(name)?.trim()
    if (raw !== undefined && NUMBER.test(raw)) return Number(raw)
  }
  return fallback
}

/** `data-playback-start` (older name `data-media-start`), `data-playback-rate` 0.1-5, `data-volume` 0-3.98. */
export function playbackOf(element: Element): {playbackStart: number; rate: number; volume: number} {
  return {
    playbackStart: Math.max(0, numberAttribute(element, ['data-playback-start', 'data-media-start'], 0)),
    rate: Math.min(5, Math.max(0.1, numberAttribute(element, ['data-playback-rate'], 1))),
    volume: Math.min(3.98, Math.max(0, numberAttribute(element, ['data-volume'], 1))),
  }
}

/** Clip length of a media element without `data-duration`: the rest of its source at its rate. */
export function naturalClipLength(element: Element, sourceSeconds: number): number {
  const {playbackStart, rate} = playbackOf(element)
  return Math.max(0, sourceSeconds - playbackStart) / rate
}

/** Looks up the probed source length of each media element, for clip timing. */
export function mediaLengths(doc: Document, media: readonly RuntimeMedia[] | undefined): (element: Element) => number | undefined {
  const elements = mediaElementsOf(doc)
  const byIndex = new Map((media ?? []).map((entry) => [entry.index, entry]))
  return (element) => {
    const entry = byIndex.get(elements.indexOf(element as HTMLMediaElement))
    return entry ? naturalClipLength(element, entry.sourceSeconds) : undefined
  }
}

export function describeMediaElement(element: Element): string {
  const id = element.id ? ` id="${element.id}"` : ''
  const cls = !id && element.getAttribute('class') ? ` class="${element.getAttribute('class')}"` : ''
  return `<${element.localName}${id}${cls}>`
}

/** The source URL the element points at: its `src`, else its first `<source src>`. */
export function mediaSourceUrl(element: HTMLMediaElement): string | null {
  if (element.getAttribute('src')) return element.src
  const source = element.querySelector<HTMLSourceElement>('source[src]')
  return source ? source.src : null
}

/** Where the element starts: its clip's start, else its sub-composition instance's, else 0. */
export function mediaStart(element: Element, timing: ClipTiming): {start: number; end: number | null} {
  const clip = timing.clips.find((candidate) => candidate.element === element)
  if (clip) return {start: clip.start, end: Number.isFinite(clip.end) ? clip.end : null}
  const host = element.closest(`[${INSTANCE_ATTRIBUTE}]`)
  const start = host ? (timing.instanceStarts.get(host.getAttribute(INSTANCE_ATTRIBUTE)!) ?? 0) : 0
  return {start, end: null}
}

/** Every media element of the live page with what the Node side needs to fetch, probe and mix it. */
export function listMediaElements(
  doc: Document,
  timing: ClipTiming,
  variablesOf: (instanceKey: string | undefined) => Record<string, unknown>,
): PageMediaElement[] {
  return mediaElementsOf(doc).map((element, index) => {
    const hasAudioAttribute = element.getAttribute('data-has-audio')
    const host = element.closest(`[${INSTANCE_ATTRIBUTE}]`)
    return {
      index,
      tag: element.localName === 'audio' ? 'audio' : 'video',
      element: describeMediaElement(element),
      src: mediaSourceUrl(element),
      ...mediaStart(element, timing),
      hasDuration: element.hasAttribute('data-duration'),
      ...playbackOf(element),
      hasAudio: element.localName === 'audio' || (hasAudioAttribute !== null && hasAudioAttribute.trim() !== 'false'),
      colorGrading: element.getAttribute('data-color-grading'),
      variables: variablesOf(host?.getAttribute(INSTANCE_ATTRIBUTE) ?? undefined),
    }
  })
}
