import {Args, Flags} from '@oclif/core'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {AWS_ENDPOINT_ENV, BUCKET_ENV, STATE_MACHINE_ENV} from '../lib/lambda/aws-clients.js'
import type {RenderConfig} from '../lib/lambda/render-input.js'
import {checkOutputUrlOptions, DEFAULT_URL_EXPIRES_SECONDS, MAX_URL_EXPIRES_SECONDS, OUTPUT_PRIVACY, type OutputUrlOptions} from '../lib/lambda/output-url.js'
import {QUALITIES} from 'html-video-engine/internal/lib/plan/render-plan.js'
import {PAGE_ERROR_MODES} from 'html-video-engine/internal/lib/plan/render-options.js'
import {parseTimeout} from '../lib/lambda/runtime/render-timeout.js'
import {assertBucketName, assertDeleteAfter, assertDownloadName, DELETE_AFTER, DELETE_AFTER_TAG, type OutputSettings} from '../lib/lambda/output-settings.js'
import type {StackRecord} from '../lib/lambda/stack-record.js'

/** Chunk-planning flags shared by the serverless render commands. */
export const chunkTuningFlags = {
  'max-parallel-chunks': Flags.integer({description: 'chunks rendered at once (default 16)', min: 1}),
  'target-chunk-frames': Flags.integer({description: 'aim for chunks of this many frames (ignored with --chunk-size)', min: 1}),
  'chunk-size': Flags.integer({
    description: "frames per chunk, also --frames-per-chunk (default 240, and at least one keyframe segment per capture worker)",
    aliases: ['frames-per-chunk'],
    min: 1,
  }),
  'concurrency-per-chunk': Flags.integer({description: "capture workers in each chunk (default: the function's vCPUs, one per 1,769 MB of memory, at most 6)", min: 1, max: 16}),
  timeout: Flags.string({
    description: 'fail the render with TIMED_OUT (failure record, webhook, clean-up) once it has run this long: seconds, or 90s, 30m, 2h (default: from its chunk plan)',
  }),
}

export const lambdaSizeFlags = {
  width: Flags.integer({description: 'output width in pixels (default: the composition\'s data-width)', min: 1}),
  height: Flags.integer({description: 'output height in pixels (default: the composition\'s data-height)', min: 1}),
}

/** Where the stack is: every lambda command honours these flags and their environment variables. */
export const stackFlags = {
  endpoint: Flags.string({description: "AWS endpoint URL, e.g. the local stack's", env: AWS_ENDPOINT_ENV}),
  region: Flags.string({description: 'AWS region (default: from the AWS environment)'}),
  bucket: Flags.string({description: 'render bucket', env: BUCKET_ENV}),
}

export const stateMachineFlag = {
  'state-machine-arn': Flags.string({description: 'render state machine', env: STATE_MACHINE_ENV}),
}

/** The HTTPS URL `progress` and `render --wait` give for a finished output. */
export const outputUrlFlags = {
  privacy: Flags.string({
    description: 'presigned: a signed URL that works until --url-expires; public: the plain object URL (the bucket must allow public reads); private: no URL',
    options: [...OUTPUT_PRIVACY],
    default: 'presigned',
  }),
  'url-expires': Flags.integer({description: `seconds a presigned URL works (default ${DEFAULT_URL_EXPIRES_SECONDS}, at most ${MAX_URL_EXPIRES_SECONDS})`}),
}

/** Checked at once, so that a bad value does not wait for the render to end to be refused. */
export function outputUrlFromFlags(flags: {privacy?: string; 'url-expires'?: number}): OutputUrlOptions {
  return checkOutputUrlOptions({privacy: flags.privacy as OutputUrlOptions['privacy'], urlExpiresInSeconds: flags['url-expires']})
}

/** `--page-errors`, as `engine render`'s: under warn the function records each uncaught page error as a warning and goes on. */
export const pageErrorsFlag = Flags.string({
  options: [...PAGE_ERROR_MODES],
  description: 'an uncaught error in the page: fail the render (default), or warn: record each as a page-error warning with its script location (shown by progress and --wait) and go on',
})

/** Encoding flags a distributed render accepts (same meaning as `engine render`). */
export const lambdaEncodeFlags = {
  fps: Flags.string({description: 'frames per second: an integer 1-240 or a rational such as 30000/1001 (default: the root\'s data-fps, else 30)'}),
  format: Flags.string({char: 'f', description: 'output format (default mp4); the deployed function must have it'}),
  quality: Flags.string({description: 'encoder preset and capture quality (default standard)', options: [...QUALITIES]}),
  crf: Flags.integer({description: 'constant rate factor 0-51, overrides the preset'}),
  'captions-track': Flags.boolean({description: 'embed the composition\'s captions as a subtitle track (mov_text in mp4 and mov, WebVTT in webm)'}),
  'captions-sidecar': Flags.boolean({description: 'store the composition\'s captions as WebVTT beside the output (<output name>.vtt)'}),
  'hls-segment-seconds': Flags.string({description: 'HLS: seconds of video per media segment (0.1-60, default 6); the segments are stored beside the playlist'}),
  'keyframe-interval': Flags.string({description: 'seconds between keyframes (0.1-60; default a quarter of the render, 0.5-4 s); chunks are whole runs of such segments'}),
  scale: Flags.string({description: 'device scale factor 0.1-16: output width·F x height·F, drawn at that density (crisp text, not an upscale)'}),
  frames: Flags.string({description: 'render only frames A-B of the composition (0-based, inclusive): A-B, A- (to the end) or N (one frame); chunks are planned inside the range'}),
  poster: Flags.string({description: 'also store the frame on screen at this time (seconds) beside the output as <output>.poster.jpg, from the chunk that captures it'}),
  'poster-format': Flags.string({description: 'poster image format: jpeg (default), png or webp'}),
  'strict-fonts': Flags.boolean({description: 'a font that falls back (missing family or glyphs) fails the render before any frame is captured'}),
  'page-errors': pageErrorsFlag,
}

export function required(value: string | undefined, flag: string, env: string): string {
  if (value) return value
  throw new EngineError('INVALID_FLAG', `--${flag} is required: pass it, or export ${env} (printed by \`engine lambda deploy\` or \`engine lambda local\`)`, {flag})
}

/** The render config the typed flags describe; flags left out stay out. */
export function configFromFlags(flags: {
  fps?: string
  format?: string
  quality?: string
  crf?: number
  'keyframe-interval'?: string
  'hls-segment-seconds'?: string
  'captions-track'?: boolean
  'captions-sidecar'?: boolean
  frames?: string
  scale?: string
  poster?: string
  'poster-format'?: string
  'strict-fonts'?: boolean
  'page-errors'?: string
  width?: number
  height?: number
  'chunk-size'?: number
  'max-parallel-chunks'?: number
  'target-chunk-frames'?: number
  'concurrency-per-chunk'?: number
  timeout?: string
}): RenderConfig {
  const config: Record<string, unknown> = {
    fps: flags.fps,
    format: flags.format,
    quality: flags.quality,
    crf: flags.crf,
    // Validated with the rest of the config, which names the field and the range.
    keyframeInterval: flags['keyframe-interval'] === undefined ? undefined : Number(flags['keyframe-interval']),
    hlsSegmentSeconds: flags['hls-segment-seconds'] === undefined ? undefined : Number(flags['hls-segment-seconds']),
    captionsTrack: flags['captions-track'] || undefined,
    captionsSidecar: flags['captions-sidecar'] || undefined,
    frames: flags.frames,
    scale: flags.scale === undefined ? undefined : Number(flags.scale),
    poster: flags.poster === undefined ? undefined : Number(flags.poster),
    posterFormat: flags['poster-format'],
    strictFonts: flags['strict-fonts'] || undefined,
    pageErrors: flags['page-errors'],
    width: flags.width,
    height: flags.height,
    chunkSize: flags['chunk-size'],
    maxParallelChunks: flags['max-parallel-chunks'],
    targetChunkFrames: flags['target-chunk-frames'],
    concurrencyPerChunk: flags['concurrency-per-chunk'],
    timeoutSeconds: flags.timeout === undefined ? undefined : parseTimeout(flags.timeout),
  }
  for (const key of Object.keys(config)) if (config[key] === undefined) delete config[key]
  return config as RenderConfig
}

/** The render a command looks at: its renderId (with ENGINE_SFN_ARN) or its execution ARN. */
export const renderArg = {render: Args.string({description: 'renderId (with ENGINE_SFN_ARN) or executionArn', required: true})}

/** What a command needs to find a render's execution, and --json. */
export const renderLookupFlags = {
  json: Flags.boolean({description: 'machine-readable output'}),
  endpoint: stackFlags.endpoint,
  region: stackFlags.region,
  ...stateMachineFlag,
}

/** Where the output goes besides its key, and how it is served and kept (render and still). */
export const lambdaOutputFlags = {
  'download-name': Flags.string({description: 'file name a browser saves the output under (Content-Disposition: attachment), also on presigned URLs; a name, not a path'}),
  'output-bucket': Flags.string({description: 'write the output to this bucket instead of the render bucket (the stack must be deployed with --output-bucket for it)'}),
  'delete-after': Flags.string({description: `delete the output this long after it is written (${DELETE_AFTER.join(', ')}): a tag the bucket's lifecycle rules expire`, options: [...DELETE_AFTER]}),
  overwrite: Flags.boolean({description: 'replace an object already at the output key (another render\'s output); without it the render fails with OUTPUT_EXISTS'}),
}

/** The output settings the flags ask for, each checked and named by its flag before anything is uploaded. */
export function outputSettingsFromFlags(flags: {'download-name'?: string; 'output-bucket'?: string; 'delete-after'?: string; overwrite?: boolean}): OutputSettings {
  return {
    ...(flags.overwrite && {overwrite: true}),
    ...(flags['download-name'] !== undefined && {downloadName: assertDownloadName(flags['download-name'], '--download-name')}),
    ...(flags['output-bucket'] !== undefined && {outputBucket: assertBucketName(flags['output-bucket'], '--output-bucket')}),
    ...(flags['delete-after'] !== undefined && {deleteAfter: assertDeleteAfter(flags['delete-after'], '--delete-after')}),
  }
}

/**
 * What a deployed stack allows of an output's settings, checked before anything is uploaded: its
 * function may write only to the buckets deploy granted it (refused here, not with AccessDenied
 * after the render ran), and --delete-after into another bucket needs that bucket's lifecycle rules.
 * Without them the output would be tagged and kept for good, against what was asked, so a bucket
 * deploy found without the rules is refused; one whose rules deploy could not read gets a warning
 * (returned). The local stack has no IAM and deletes nothing; an unrecorded stack is not checked.
 */
export function checkOutputSettings(settings: OutputSettings, stack: StackRecord | undefined): string | undefined {
  const bucket = settings.outputBucket
  if (bucket === undefined || stack === undefined || stack.kind === 'local') return undefined
  if (!stack.outputBuckets?.includes(bucket)) {
    const granted = stack.outputBuckets?.length ? `it may write to ${stack.outputBuckets.join(', ')}` : 'it was deployed without --output-bucket'
    throw new EngineError('INVALID_FLAG', `--output-bucket: the function of stack ${stack.functionName} may not write to "${bucket}" (${granted}); run \`engine lambda deploy --output-bucket ${bucket}\` first`, {
      field: 'output-bucket',
      value: bucket,
    })
  }
  const {deleteAfter} = settings
  if (deleteAfter === undefined) return undefined
  const rules = stack.deleteAfterRules?.[bucket]
  const rule = `${DELETE_AFTER_TAG}-${deleteAfter}`
  if (rules === 'present') return undefined
  if (rules === 'unknown') {
    return `--delete-after ${deleteAfter}: deploy could not read the lifecycle rules of "${bucket}"; the output is tagged ${DELETE_AFTER_TAG}=${deleteAfter} and is deleted only if that bucket has the rule ${rule} (see the deploy's warning)`
  }
  const why = rules === 'missing' ? 'deploy may not add it there' : 'the stack was deployed before deploy added it to output buckets'
  throw new EngineError(
    'INVALID_FLAG',
    `--delete-after ${deleteAfter}: "${bucket}" has no lifecycle rule ${rule} (${why}), so the output would never be deleted; add the rule to the bucket and run \`engine lambda deploy --output-bucket ${bucket}\` again, or render without --delete-after`,
    {field: 'delete-after', value: deleteAfter, bucket},
  )
}
