import {dirname, relative, resolve} from 'node:path'
import {getFormat} from '../encode/format-registry.js'
import {isDeepStrictEqual} from 'node:util'
import {EngineError} from '../errors/engine-error.js'
import {formatFps, parseFps} from '../plan/fps.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {completedOutputProblem} from './check-completed-output.js'
import {countStatuses, MANIFEST_VERSION, type BatchManifest, type ManifestRow, type RenderSettings} from './batch-manifest.js'
import {readManifest} from './manifest-store.js'
import {sha256} from './read-batch-file.js'
import type {BatchJob} from './preflight.js'

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
  code: 'resume-no-manifest' | 'output-missing' | 'output-damaged'
  message: string
}

export interface StartedManifest {
  manifest: BatchManifest
  notices: BatchNotice[]
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

export function renderSettings(options: ResolvedRenderOptions): RenderSettings {
  return {
    format: options.format,
    fps: formatFps(parseFps(options.fps)),
    quality: options.quality,
    crf: options.crf,
    videoBitrate: options.videoBitrate,
    keyframeInterval: options.keyframeInterval,
    gifLoop: options.gifLoop,
    gpu: options.gpu,
    hdr: options.hdr,
    sdr: options.sdr,
    videoFrameFormat: options.videoFrameFormat,
    ...(options.scale !== undefined && options.scale !== 1 && {scale: options.scale}),
    ...(options.frames !== undefined && {frames: options.frames}),
  }
}

/** A manifest with every row pending. */
export function freshManifest(identity: BatchIdentity, jobs: readonly BatchJob[], manifestPath: string): BatchManifest {
  const now = new Date().toISOString()
  const rows = jobs.map((job) => pendingRow(job, manifestPath))
  return {version: MANIFEST_VERSION, ...identity, createdAt: now, updatedAt: now, counts: countStatuses(rows), rows}
}

/**
 * `--resume`: keeps the rows the existing manifest records as completed (and whose output is
 * still there, not empty, with the recorded frame count) and makes every other row pending again. A manifest made for another composition
 * (or other content of it or of a sub-composition), other base variables, other rows, another
 * output template or other render settings is refused, since mixing its finished files with new
 * ones would give a batch that no single run could have produced.
 */
export async function resumeManifest(identity: BatchIdentity, jobs: readonly BatchJob[], manifestPath: string): Promise<StartedManifest> {
  const previous = await readManifest(manifestPath)
  if (!previous) {
    return {
      manifest: freshManifest(identity, jobs, manifestPath),
      notices: [{code: 'resume-no-manifest', message: `--resume: there is no ${manifestPath} yet, so every row is rendered`}],
    }
  }
  assertSameBatch(previous, identity, manifestPath)
  const notices: BatchNotice[] = []
  const done = new Map(previous.rows.filter((row) => row.status === 'completed').map((row) => [row.index, row]))
  const format = getFormat(identity.settings.format)
  const rows: ManifestRow[] = []
  for (const job of jobs) {
    const completed = done.get(job.index)
    const problem = completed && (await completedOutputProblem(resolve(dirname(manifestPath), completed.output), completed, format))
    if (completed && !problem) {
      rows.push(completed)
      continue
    }
    if (completed) {
      notices.push({
        code: problem === 'is gone' ? 'output-missing' : 'output-damaged',
        message: `--resume: row ${job.index} was completed but ${job.output} ${problem}; rendering it again`,
      })
    }
    rows.push(pendingRow(job, manifestPath))
  }
  // The earlier run's batch.completed call says nothing about this run.
  const {finishedAt: _finished, webhook: _webhook, ...kept} = previous
  return {
    manifest: {...kept, ...identity, updatedAt: new Date().toISOString(), counts: countStatuses(rows), rows},
    notices,
  }
}

function assertSameBatch(previous: BatchManifest, identity: BatchIdentity, manifestPath: string): void {
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
  const changed = [...keys].filter(
    (key) => previous.settings[key] !== identity.settings[key],
  )
  if (changed.length > 0) {
    const list = changed.map((key) => `${key} ${JSON.stringify(previous.settings[key])} -> ${JSON.stringify(identity.settings[key])}`).join(', ')
    throw refuse(`was rendered with other settings (${list})`)
  }
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

function pendingRow(job: BatchJob, manifestPath: string): ManifestRow {
  return {index: job.index, status: 'pending', output: relative(dirname(manifestPath), job.output), variables: job.variables}
}
