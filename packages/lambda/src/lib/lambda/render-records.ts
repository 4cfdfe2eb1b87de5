import type {RowWarning} from 'html-video-engine/internal/lib/batch/batch-manifest.js'
import type {StillFormat} from 'html-video-engine/internal/lib/still/still-settings.js'
import type {BrowserSource} from 'html-video-engine/internal/lib/browser/browser-choice.js'
import type {RenderPlan} from 'html-video-engine/internal/lib/plan/render-plan.js'
import type {ChunkItem} from './render-input.js'
import type {OutputSettings} from './output-settings.js'

/** `scratch/<renderId>/plan.json`: everything a chunk needs, written once by `plan`. */
export interface StoredPlan {
  renderId: string
  siteId: string
  entry: string
  outputKey: string
  /** The finished plan (see finalizePlan); each chunk points its `projectDir` at its own copy of the site. */
  plan: RenderPlan
  /** planHash of `plan`: each chunk checks it before rendering and records it; assemble joins only chunks that agree. */
  planHash: string
  chunks: ChunkItem[]
  /**
   * Key of the render's mixed audio track (null when the composition is silent). Mixing happens
   * once, in `plan`, and `assemble` muxes the track.
   */
  audioKey: string | null
  /** The poster (`config.poster`): the frame whose chunk stores it, and the key assemble gives it. */
  poster?: {frame: number; format: StillFormat; key: string}
  /** `config.strictFonts`: each chunk's page fails on a font fallback too. */
  strictFonts?: boolean
  /** When the render fails with TIMED_OUT: its execution's start plus its timeout. Chunks stop there. */
  deadline?: string
  /** Capture workers each chunk runs (see chunkWorkers). */
  workersPerChunk?: number
  /** The config's outputBucket, downloadName and deleteAfter: where assemble writes the output and with what headers. */
  output?: OutputSettings
  /** The check pass's findings (`onOverflow: warn`), which the render's outcome carries. */
  textWarnings?: RowWarning[]
  /** The render cache key (see bucket-render-cache.ts): assemble stores the output under it. */
  cacheKey?: string
}

/** One handler invocation, for the cost estimate. */
export interface InvocationCost {
  durationMs: number
  memoryMb: number
}

/** `renders/<renderId>/render.json`: what was planned; read by progress. */
export interface RenderRecord {
  renderId: string
  siteId: string
  outputKey: string
  format: string
  /** Size of the output's frames (the composition's, times `scale`). */
  width: number
  height: number
  fps: string
  /** Where the rate came from: the config's `fps`, the root's `data-fps`, or the default 30. */
  fpsSource?: 'flag' | 'composition' | 'default'
  /** Frames of the output (a `frames` range's, when the config has one). */
  totalFrames: number
  /** Frame ranges of the chunks, by index: progress turns finished chunks into frames. */
  chunks: ChunkItem[]
  maxParallelChunks: number
  chunkMode: 'chunk-size' | 'target-chunk-frames'
  /** Capture workers each chunk runs. */
  workersPerChunk?: number
  /** The render's timeout in seconds (given, or derived from its chunk plan) and the deadline it sets. */
  timeoutSeconds?: number
  deadline?: string
  warnings: {code: string; message: string}[]
  plannedAt: string
  plan: InvocationCost
}

export interface StoredSegment {
  /** File or directory name inside the chunk's prefix. */
  name: string
  /** Frame-file formats write a directory of frames per segment. */
  files?: string[]
  start: number
  end: number
}

/** A warning of a render: `detail` says where a `page-error` was thrown ({file, line, column} or the script URL). */
export interface RenderWarning {
  code: string
  message: string
  detail?: Record<string, unknown>
}

/** The browser a chunk captured with: chunks of one render must agree for their seams to match. */
export interface ChunkBrowser {
  /** Chromium's version, e.g. "153.0.8010.0". */
  version: string
  /** Where the executable came from ("sparticuz" on Lambda). */
  source: BrowserSource
  capture: 'begin-frame' | 'screenshot'
}

/** `scratch/<renderId>/chunks/chunk-NNNNN.json`: written after the chunk's segments; marks it done. */
export interface ChunkManifest {
  index: number
  start: number
  end: number
  segments: StoredSegment[]
  finishedAt: string
  invocation: InvocationCost
  browser: ChunkBrowser
  /** planHash of the plan this chunk rendered. */
  planHash: string
  /** A browser without begin-frame; under pageErrors "warn", each uncaught page error with where it was thrown. */
  warnings: RenderWarning[]
  /** The chunk's pages loaded remote URLs: what they serve may change, so the output is not cached. */
  fetchedRemote?: boolean
}

/** `renders/<renderId>/result.json`: what `assemble` produced. */
export interface RenderResultRecord {
  renderId: string
  /** Where the output is when it is not in the render's bucket (`config.outputBucket`). */
  outputBucket?: string
  outputKey: string
  /** For frame-file formats the output is a prefix holding one object per frame. */
  outputKind: 'file' | 'prefix'
  bytes: number
  totalFrames: number
  /** The poster beside the output, when the render asked for one. */
  posterKey?: string
  finishedAt: string
  assemble: InvocationCost
  /** Every chunk's invocation and browser, kept here because the chunk manifests are deleted with the scratch. */
  chunks: (InvocationCost & {browser: ChunkBrowser})[]
  /** Warnings the chunks raised (a browser without begin-frame, a page error under pageErrors "warn"), each once. */
  warnings: RenderWarning[]
}

/** `renders/<renderId>/failure.json`: written by the workflow's Catch, after which the scratch is deleted. */
export interface RenderFailureRecord {
  renderId: string
  /** The Step Functions error name (`Engine.PAGE_ERROR`, `Lambda.TooManyRequestsException`, `States.Timeout`…). */
  error: string
  code: string
  message: string
  /** The chunk that failed, when a chunk did. */
  chunk?: number
  logStream?: string
  failedAt: string
}

/** `renders/<renderId>/cancelled.json`: written by `engine lambda cancel` after stopping the execution. */
export interface RenderCancelRecord {
  renderId: string
  executionArn: string
  cancelledAt: string
  /** Scratch objects the (latest) cancel deleted; chunks still running then remove what they store after it themselves. */
  scratchObjectsDeleted: number
}
