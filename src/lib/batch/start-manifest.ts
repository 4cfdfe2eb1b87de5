import {stat} from 'node:fs/promises'
import {dirname, relative, resolve} from 'node:path'
import {isDeepStrictEqual} from 'node:util'
import {createHash} from 'node:crypto'
import {getFormat} from '../encode/format-registry.js'
import {EngineError} from '../errors/engine-error.js'
import {fileSha256} from '../files/file-sha256.js'
import {formatFps, type Fps} from '../plan/fps.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {completedOutputProblem} from './check-completed-output.js'
import {isRowDone, MANIFEST_VERSION, zeroCounts, type ManifestHead, type RenderSettings, type RowRecord} from './batch-manifest.js'
import {readJournal, readManifestFile} from './manifest-file.js'
import {MAX_LISTED, type BatchJob} from './preflight.js'

/** What makes two runs the same batch. */
export interface BatchIdentity {
  composition: string
  compositionSha256: string
  compositionFiles: Record<string, string>
  baseVariables: Record<string, unknown>
  batchFile: string
  rowsSha256: string
  outputTemplate: string
  settings: RenderSettings
}

export interface BatchNotice {
  code: 'resume-no-manifest' | 'output-missing' | 'output-damaged' | 'output-adopted'
  message: string
}

export interface ResumedRows {
  /** Rows carried over as completed, by index. */
  kept: Map<number, RowRecord>
  notices: BatchNotice[]
  /** When the batch was first started; undefined when there was no manifest. */
  createdAt?: string
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/**
 * The composition's part of a batch's identity: the hash of every file it was compiled from, named
 * relative to its folder so that a moved project folder still resumes.
 */
export function compositionContent(composition: string, sourceFiles: Record<string, string>): Pick<BatchIdentity, 'compositionFiles' | 'compositionSha256'> {
  const compositionFiles = Object.fromEntries(
    Object.entries(sourceFiles)
      .map(([path, sha256]) => [relative(dirname(composition), path), sha256] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  )
  return {compositionFiles, compositionSha256: sha256(JSON.stringify(compositionFiles))}
}

/** `fps`: the planned rate (an option, else the root's data-fps, else 30). */
export function renderSettings(options: ResolvedRenderOptions, fps: Fps): RenderSettings {
  return {
    format: options.format,
    fps: formatFps(fps),
    quality: options.quality,
    crf: options.crf,
    videoBitrate: options.videoBitrate,
    keyframeInterval: options.keyframeInterval,
    ...(options.hlsSegmentSeconds !== undefined && {hlsSegmentSeconds: options.hlsSegmentSeconds}),
    gifLoop: options.gifLoop,
    gpu: options.gpu,
    hdr: options.hdr,
    sdr: options.sdr,
    videoFrameFormat: options.videoFrameFormat,
    ...(options.scale !== undefined && options.scale !== 1 && {scale: options.scale}),
    ...(options.frames !== undefined && {frames: options.frames}),
  }
}

/** The head of a batch's manifest before any row ran. */
export function manifestHead(identity: BatchIdentity, total: number, createdAt = new Date().toISOString()): ManifestHead {
  return {version: MANIFEST_VERSION, ...identity, createdAt, updatedAt: createdAt, counts: {...zeroCounts(), pending: total}}
}

/**
 * `--resume`: the rows the manifest and its journal record as completed, whose output is still
 * where this run puts it, there, not empty and with the recorded size (or frame count), are kept;
 * so is a row that was running when the batch was killed if its output was finished after the row
 * started (`adopt`: outputs are renamed into place only when whole). Every other row renders again.
 * A manifest made for another composition (or other content of it), other base variables, other
 * rows, another output template or other render settings is refused, since mixing its finished
 * files with new ones would give a batch that no single run could have produced.
 */
export async function resumeRows(
  identity: BatchIdentity,
  manifestPath: string,
  jobs: AsyncIterable<BatchJob>,
  adopt: boolean,
  /** Why a completed row's output no longer holds it (default: its local file checked); a remote output checks its stored object. */
  outputProblem: (job: BatchJob, record: RowRecord) => Promise<string | undefined> = (job, record) => completedOutputProblem(job.output, record, getFormat(identity.settings.format)),
): Promise<ResumedRows> {
  const earlier = new Map<number, RowRecord>()
  const remember = (record: RowRecord) => {
    if (isRowDone(record.status) || record.status === 'running') earlier.set(record.index, record)
    else earlier.delete(record.index)
  }
  const head = await readManifestFile(manifestPath, ({output: _output, variables: _variables, data: _data, ...record}) => remember(record))
  if (!head) {
    return {kept: new Map(), notices: [{code: 'resume-no-manifest', message: `--resume: there is no ${manifestPath} yet, so every row is rendered`}]}
  }
  await readJournal(manifestPath, remember)
  assertSameBatch(head, identity, manifestPath)

  const format = getFormat(identity.settings.format)
  const kept = new Map<number, RowRecord>()
  const notices: BatchNotice[] = []
  let unlisted = 0
  const notice = (entry: BatchNotice) => (notices.length < MAX_LISTED ? notices.push(entry) : unlisted++)
  // Each row's output is the one this run gives it, never the path the manifest names: a manifest cannot point a row elsewhere.
  for await (const job of jobs) {
    const record = earlier.get(job.index)
    if (!record) continue
    if (record.status === 'running') {
      const finished = adopt && (await adoptable(job.output, record, format))
      if (finished) {
        kept.set(job.index, finished)
        notice({code: 'output-adopted', message: `--resume: row ${job.index} was running when the batch stopped and ${job.output} is complete; keeping it`})
      }
      continue
    }
    const problem = await outputProblem(job, record)
    if (!problem) {
      kept.set(job.index, record)
      continue
    }
    notice({code: problem === 'is gone' ? 'output-missing' : 'output-damaged', message: `--resume: row ${job.index} was completed but ${job.url ?? job.output} ${problem}; rendering it again`})
  }
  if (unlisted > 0) notices.push({code: 'output-missing', message: `--resume: ${unlisted} more rows were kept or render again (see the manifest)`})
  return {kept, notices, createdAt: head.createdAt}
}

/** The record of a row that was running when its batch was killed and whose output was put in place after it started. */
async function adoptable(output: string, record: RowRecord, format: ReturnType<typeof getFormat>): Promise<RowRecord | undefined> {
  const info = await stat(output).catch(() => undefined)
  if (!info || record.startedAt === undefined || info.mtimeMs < Date.parse(record.startedAt)) return undefined
  if (await completedOutputProblem(output, record, format)) return undefined
  return {
    index: record.index,
    status: 'completed',
    startedAt: record.startedAt,
    finishedAt: info.mtime.toISOString(),
    ...(info.isFile() && {bytes: info.size, sha256: await fileSha256(output)}),
  }
}

function assertSameBatch(previous: ManifestHead, identity: BatchIdentity, manifestPath: string): void {
  const refuse = (reason: string) =>
    new EngineError(
      'BATCH_PREFLIGHT',
      `--resume: ${manifestPath} ${reason}. Run without --resume to render this batch from the start (the manifest is replaced), or give --output a different directory.`,
      {manifest: manifestPath},
    )
  if (previous.composition !== identity.composition) {
    throw refuse(`was written for composition ${previous.composition}, not ${identity.composition}`)
  }
  if (previous.compositionSha256 !== identity.compositionSha256) {
    throw refuse(`was written for other content of ${identity.composition} (${recordChanges(previous.compositionFiles, identity.compositionFiles, 'edited')})`)
  }
  if (!isDeepStrictEqual(previous.baseVariables, identity.baseVariables)) {
    throw refuse(`was written with other base variables from --variables/--variables-file (${recordChanges(previous.baseVariables, identity.baseVariables, 'changed')})`)
  }
  if (previous.rowsSha256 !== identity.rowsSha256) {
    throw refuse(`was written for other rows (batch file ${previous.batchFile}); the rows of ${identity.batchFile} differ`)
  }
  if (previous.outputTemplate !== identity.outputTemplate) {
    throw refuse(`was written for --output "${previous.outputTemplate}", not "${identity.outputTemplate}"`)
  }
  // Both sides' keys: an optional setting (scale, frames) dropped since the last run is a change too.
  const keys = new Set([...Object.keys(previous.settings), ...Object.keys(identity.settings)]) as Set<keyof RenderSettings>
  const changed = [...keys].filter((key) => previous.settings[key] !== identity.settings[key])
  if (changed.length > 0) {
    const list = changed.map((key) => `${key} ${settingText(previous.settings[key])} -> ${settingText(identity.settings[key])}`).join(', ')
    throw refuse(`was rendered with other settings (${list})`)
  }
}

/** A setting as the user wrote it; one left out (the flag not given) is the default, not `undefined`. */
function settingText(value: unknown): string {
  return value === undefined ? 'not set (the default)' : JSON.stringify(value)
}

/** `a edited, b added, c removed`: the keys whose values differ between two records. */
function recordChanges(before: Record<string, unknown>, after: Record<string, unknown>, verb: string): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
  return keys
    .flatMap((key) => {
      if (!(key in before)) return [`${key} added`]
      if (!(key in after)) return [`${key} removed`]
      return isDeepStrictEqual(before[key], after[key]) ? [] : [`${key} ${verb}`]
    })
    .join(', ')
}
