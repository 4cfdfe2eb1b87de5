import {resolveTiming, type TimingFinding, type TimingItem} from '../../compose/resolve-timing.js'
import {INSTANCE_ATTRIBUTE} from '../../compose/runtime-instance.js'
import type {RuntimeConfig} from '../runtime-config.js'

export interface TimedClip {
  element: Element
  /** Absolute seconds; a clip without a duration stays visible to the end. */
  start: number
  end: number
}

export interface ClipTiming {
  clips: TimedClip[]
  /** Absolute start of each sub-composition instance, by instance key. */
  instanceStarts: Map<string, number>
  findings: TimingFinding[]
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

/** The root composition element: the one with the configured id that is not inside a sub-composition. */
export function findRootComposition(doc: Document, config: RuntimeConfig): Element | undefined {
  const selector = `[data-composition-id="${CSS.escape(config.compositionId)}"]`
  return Array.from(doc.querySelectorAll(selector)).find((element) => !element.closest(`[${INSTANCE_ATTRIBUTE}]`))
}

/**
 * Reads clip timing from the live DOM, after the page's scripts ran, so a `data-duration` written
 * by a script counts like one in the source. Starts inside a sub-composition instance are relative
 * to the instance's start. The root's own duration comes from the config, never from the DOM.
 */
export function readClipTiming(doc: Document, config: RuntimeConfig, mediaLength: MediaLength = () => undefined): ClipTiming {
  const root = findRootComposition(doc, config) ?? doc.documentElement
  const elements = Array.from(root.querySelectorAll(`[data-start], [data-duration], [${INSTANCE_ATTRIBUTE}]`)).filter(
    (element) => !isSubCompositionRoot(element),
  )
  const keys = new Map(elements.map((element, index) => [element, `e${index}`]))
  const items: TimingItem[] = elements.map((element) => ({
    key: keys.get(element)!,
    id: element.id || undefined,
    start: parseStart(element.getAttribute('data-start')),
    duration: durationOf(element, mediaLength),
    parentKey: parentHost(element, root, keys),
  }))
  const {timings, findings} = resolveTiming(items)

  const clips: TimedClip[] = []
  const instanceStarts = new Map<string, number>()
  for (const element of elements) {
    const timing = timings[keys.get(element)!]
    const start = timing.start ?? parentStart(element, root, instanceStarts)
    clips.push({element, start, end: timing.end ?? Number.POSITIVE_INFINITY})
    const instanceKey = element.getAttribute(INSTANCE_ATTRIBUTE)
    if (instanceKey !== null) instanceStarts.set(instanceKey, start)
  }
  return {clips, instanceStarts, findings}
}

/** Compile inserts a sub-composition's own root element directly inside its host; the host is the clip. */
function isSubCompositionRoot(element: Element): boolean {
  return element.hasAttribute('data-composition-id') && !element.hasAttribute(INSTANCE_ATTRIBUTE) && !!element.parentElement?.hasAttribute(INSTANCE_ATTRIBUTE)
}

function parseStart(raw: string | null): number | {after: string} {
  if (raw === null || raw.trim() === '') return 0
  const trimmed = raw.trim()
  return NUMBER.test(trimmed) ? Number(trimmed) : {after: trimmed}
}

function parseSeconds(raw: string | null): number | undefined {
  if (raw === null) return undefined
  const trimmed = raw.trim()
  return NUMBER.test(trimmed) ? Number(trimmed) : undefined
}

/** Clip length of a media element from its probed source (the render knows it; the preview does not). */
export type MediaLength = (element: Element) => number | undefined

/**
 * `data-duration`; a host without one lasts as long as its sub-composition says; a media element
 * without one lasts for the rest of its source: as probed by the render, else once the browser
 * knows the source's length.
 */
function durationOf(element: Element, mediaLength: MediaLength): number | undefined {
  const own = parseSeconds(element.getAttribute('data-duration'))
  if (own !== undefined) return own
  if (element.hasAttribute(INSTANCE_ATTRIBUTE)) {
    const inner = Array.from(element.children).find(isSubCompositionRoot)
    return inner ? parseSeconds(inner.getAttribute('data-duration')) : undefined
  }
  const probed = element instanceof HTMLMediaElement ? mediaLength(element) : undefined
  if (probed !== undefined) return probed
  if (element instanceof HTMLMediaElement && Number.isFinite(element.duration)) {
    const offset = parseSeconds(element.getAttribute('data-playback-start') ?? element.getAttribute('data-media-start')) ?? 0
    const rate = parseSeconds(element.getAttribute('data-playback-rate')) ?? 1
    return Math.max(0, element.duration - offset) / (rate > 0 ? rate : 1)
  }
  return undefined
}

function parentHost(element: Element, root: Element, keys: Map<Element, string>): string | undefined {
  const host = element.parentElement?.closest(`[${INSTANCE_ATTRIBUTE}]`)
  return host && root.contains(host) ? keys.get(host) : undefined
}

/** Where a clip whose start could not be resolved shows from: its instance's start, else 0. */
function parentStart(element: Element, root: Element, instanceStarts: Map<string, number>): number {
  const host = element.parentElement?.closest(`[${INSTANCE_ATTRIBUTE}]`)
  if (!host || !root.contains(host)) return 0
  return instanceStarts.get(host.getAttribute(INSTANCE_ATTRIBUTE)!) ?? 0
}
