import type {EnginePageApi, ReadinessState, ReadyReport, ReadyStage, SeekResult} from '../page-protocol.js'
import type {RuntimeConfig} from '../runtime-config.js'
import type {TextFindingRecord} from '../text-check-protocol.js'
import {readClipTiming, type ClipTiming} from './clip-timing.js'
import {CaptionText} from './caption-text.js'
import {ClipVisibility} from './clip-visibility.js'
import {GsapControl, type GsapChild} from './gsap-control.js'
import {InstanceScope} from './instance-scope.js'
import {listMediaElements, mediaLengths} from '../../media/page/media-elements.js'
import {VideoFrames} from '../../media/page/video-frames.js'
import {PageFonts} from '../../fonts/page/page-fonts.js'
import {LayerReset} from './layer-reset.js'
import {MediaFreeze} from './media-freeze.js'
import {PageErrors} from './page-errors.js'
import {PendingAssets} from './pending-assets.js'
import {AnimationSeeker} from './seek-animations.js'
import {installSeededRandom, SeededRandom} from './seeded-random.js'
import {TimelineRegistry} from './timeline-registry.js'
import {VariableImages} from './variable-images.js'
import {ReadinessHolds} from './readiness-holds.js'
import {installVirtualClock, VirtualClock} from './virtual-clock.js'
import {findRootComposition} from './clip-timing.js'
import {fitText} from './fit-text.js'
import {findTextOverflow} from './text-overflow.js'

export interface PageEngine extends EnginePageApi {
  __runScoped<T>(instanceKey: string, fn: (engine: EnginePageApi) => T): T
}

/** Rounds of 0 ms timers run at load before timing is read (scripts that defer their setup). */
const LOAD_TIMER_ROUNDS = 10

/** Frame i shows t = i / fps, computed from the exact fraction so float drift never lands on a neighbour frame. */
export function frameSeconds(frame: number, config: RuntimeConfig): number {
  return (Math.floor(frame + 1e-9) * config.fps.den) / config.fps.num
}

/**
 * Installs the runtime into a fresh page, before any page script runs: virtual time, seeded
 * randomness, the timeline registry and error recording. Returns `window.__engine`.
 */
export function installRuntime(win: Window & typeof globalThis, config: RuntimeConfig): PageEngine {
  const realSetTimeout = win.setTimeout.bind(win)
  const nextTask = () => new Promise<void>((resolve) => realSetTimeout(resolve, 0))

  const errors = new PageErrors()
  errors.install(win)
  const clock = new VirtualClock((error) => errors.report(error))
  installVirtualClock(win, clock)
  const random = new SeededRandom(config.seed)
  installSeededRandom(win, random)
  const scope = new InstanceScope(config)
  const registry = new TimelineRegistry(config, scope)
  registry.install(win)
  const assets = new PendingAssets(win.document)
  assets.observe()
  const images = new VariableImages(win, config, scope)
  images.install()
  const holds = new ReadinessHolds()
  const fonts = new PageFonts(win, config.fonts)
  fonts.install()
  const gsap = new GsapControl()
  gsap.install(win)
  clock.beforeTimer = (dueMs) => gsap.seek(dueMs / 1000)

  let timing: ClipTiming = {clips: [], instanceStarts: new Map(), findings: []}
  const seeker = new AnimationSeeker(win, gsap, registry, (key) => (key === undefined ? 0 : (timing.instanceStarts.get(key) ?? 0)))
  let visibility = new ClipVisibility([])
  const media = new MediaFreeze(win.document)
  const layers = new LayerReset(win.document)
  const videoFrames = new VideoFrames(win.document, config.media)
  const captionText = new CaptionText(win.document, config)
  let stage: ReadyStage = 'load'
  /** Plain GSAP tweens sub-composition scripts created; they start at their instance's start, like its CSS animations. */
  const instanceTweens: {instanceKey: string; created: GsapChild[]}[] = []

  const readiness = (): ReadinessState => {
    const doc = win.document
    switch (stage) {
      case 'load':
        return {stage, pending: [`document.readyState is "${doc.readyState}"`, ...assets.undecodedImages()]}
      case 'fonts':
        return {stage, pending: Array.from(doc.fonts).filter((font) => font.status === 'loading').map((font) => font.family)}
      case 'images':
        return {stage, pending: assets.undecodedImages()}
      case 'holds':
        return {stage, pending: holds.labels()}
      default:
        return {stage, pending: []}
    }
  }

  const becomeReady = async (): Promise<ReadyReport> => {
    if (win.document.readyState !== 'complete') await new Promise((resolve) => win.addEventListener('load', resolve, {once: true}))
    stage = 'fonts'
    await fonts.loadUsed()
    stage = 'images'
    await Promise.all([images.preload(), assets.waitForAllImages()])
    stage = 'scripts'
    await runStartupTimers()
    // What the page drew once released may itself defer to a timer or a frame callback.
    while (holds.count > 0) {
      stage = 'holds'
      await holds.released()
      stage = 'scripts'
      await runStartupTimers()
    }
    // Text a start-up timer wrote may use faces (or characters) not loaded yet.
    await fonts.loadUsed()
    await assets.waitForAllImages()
    // Text sizes are settled once, on the loaded fonts, before any clip is hidden or frame drawn.
    fitText(win.document)
    stage = 'timing'
    timing = readClipTiming(win.document, config, mediaLengths(win.document, config.media))
    videoFrames.attach(timing)
    for (const {instanceKey, created} of instanceTweens) {
      const offset = timing.instanceStarts.get(instanceKey) ?? 0
      if (offset !== 0) for (const child of created) child.startTime(child.startTime() + offset)
    }
    visibility = new ClipVisibility(timing.clips)
    ClipVisibility.install(win.document)
    media.apply()
    stage = 'ready'
    const timelineSeconds = registry.rootSeconds()
    return {errors: [...errors.records], timingFindings: timing.findings, clipCount: timing.clips.length, fonts: fonts.report(), ...(timelineSeconds !== undefined && {timelineSeconds})}
  }

  /** Setup deferred with setTimeout(fn, 0) or requestAnimationFrame still belongs to load. */
  const runStartupTimers = async () => {
    clock.advanceTo(0)
    clock.flushFrames()
    for (let round = 0; round < LOAD_TIMER_ROUNDS; round++) {
      clock.advanceTo(0)
      await nextTask()
      if (!clock.hasTimersDueBy(0)) break
    }
  }

  let readyPromise: Promise<ReadyReport> | undefined
  const ready = () => (readyPromise ??= becomeReady())

  const seek = async (frame: number): Promise<SeekResult> => {
    await ready()
    const seconds = frameSeconds(frame, config)
    random.reseed(frame)
    clock.advanceTo(seconds * 1000)
    seeker.seekGsap(seconds)
    const generation = registry.generation
    clock.flushFrames()
    // A timeline registered by a frame callback must show this frame's time too.
    if (registry.generation !== generation) seeker.seekTimelines(seconds)
    seeker.seekDocumentAnimations(seconds)
    visibility.apply(seconds)
    captionText.apply(frame)
    media.apply()
    await videoFrames.seek(seconds)
    seekLoadedAssets = await assets.settleChanges()
    // Text this frame shows may have needed faces that failed to load.
    if (seekLoadedAssets) await fonts.remakeFailed()
    if (Math.floor(frame + 1e-9) % fontSampleFrames === 0) fonts.sample()
    return errors.first()
  }
  let seekLoadedAssets = false
  /** Frames between two looks at the page's text: one per second of video. */
  const fontSampleFrames = Math.max(1, Math.round(config.fps.num / config.fps.den))

  const api: EnginePageApi = {
    getVariables: () => scope.variables(),
    // Once ready, the frames are being drawn: a late hold cannot delay them.
    hold: (label) => (stage === 'ready' || stage === 'timing' ? () => {} : holds.hold(label)),
    ready,
    readiness,
    seek,
    seekLoadedAssets: () => seekLoadedAssets,
    canSeekTo: (frame) => clock.canRewindTo(frameSeconds(frame, config) * 1000),
    errors: () => [...errors.records],
    hideLayers: () => layers.hide(),
    showLayers: () => layers.show(),
    fontSamples: () => {
      fonts.sample()
      return fonts.takeSamples()
    },
    mediaElements: async (sourceSeconds = {}) => {
      await ready()
      const probed = Object.entries(sourceSeconds).map(([index, seconds]) => ({index: Number(index), sourceSeconds: seconds}))
      const probedTiming = readClipTiming(win.document, config, mediaLengths(win.document, probed))
      return listMediaElements(win.document, probedTiming, (key) => scope.variables(key))
    },
    textClips: async () => {
      await ready()
      return timing.clips.map(({start, end}) => ({start, end: Number.isFinite(end) ? end : null}))
    },
    checkText: async (frames, pastPageErrors = false) => {
      const root = findRootComposition(win.document, config) ?? win.document.documentElement
      const findings: TextFindingRecord[] = []
      for (const frame of frames) {
        const error = await seek(frame)
        if (error && !pastPageErrors) throw new Error(`the page failed at frame ${frame}: ${error.message}`)
        findings.push(...findTextOverflow(win.document, root, config, frame))
      }
      return findings
    },
  }
  const scoped = new Map<string, EnginePageApi>()
  const scopedApi = (key: string): EnginePageApi => {
    let engine = scoped.get(key)
    if (!engine) {
      engine = {...api, getVariables: () => scope.variables(key)}
      scoped.set(key, engine)
    }
    return engine
  }
  return {
    ...api,
    __runScoped: (instanceKey, fn) => {
      let result: ReturnType<typeof fn> | undefined
      const created = gsap.collectNew(() => {
        result = scope.run(instanceKey, () => fn.call(win, scopedApi(instanceKey)))
      })
      if (created.length > 0) instanceTweens.push({instanceKey, created})
      return result as ReturnType<typeof fn>
    },
  }
}
