import {stat} from 'node:fs/promises'
import {dirname, relative, resolve} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {formatFps, parseFps} from '../plan/fps.js'
import type {ResolvedRenderOptions} from '../plan/resolve-options.js'
import {countStatuses, MANIFEST_VERSION, type BatchManifest, type ManifestRow, type RenderSettings} from './batch-manifest.js'
import {readManifest} from './manifest-store.js'
import type {BatchJob} from './preflight.js'

/** What makes two runs the same batch. */
export interface BatchIdentity {
  composition: string
  compositionSha256: string
  batchFile: string
  rowsSha256: string
  outputTemplate: string
  settings: RenderSettings
}

export interface BatchNotice {
  code: 'resume-no-manifest' | 'composition-changed' | 'output-missing'
  message: string
}

export interface StartedManifest {
  manifest: BatchManifest
  notices: BatchNotice[]
}

export function renderSettings(options: ResolvedRenderOptions): RenderSettings {
  return {
    format: options.format,
    fps: formatFps(parseFps(options.fps)),
    quality: options.quality,
    crf: options.crf,
    videoBitrate: options.videoBitrate,
    gifLoop: options.gifLoop,
    gpu: options.gpu,
    hdr: options.hdr,
    sdr: options.sdr,
    videoFrameFormat: options.videoFrameFormat,
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
 * still there) and makes every other row pending again. A manifest made for another composition,
 * other rows, another output template or other render settings is refused, since mixing its
 * finished files with new ones would give a batch that no single run could have produced.
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
  if (previous.compositionSha256 !== identity.compositionSha256) {
    notices.push({
      code: 'composition-changed',
      message: `--resume: ${identity.composition} changed since ${manifestPath} was written; rows completed before keep the earlier version`,
    })
  }
  const done = new Map(previous.rows.filter((row) => row.status === 'completed').map((row) => [row.index, row]))
  const rows: ManifestRow[] = []
  for (const job of jobs) {
    const completed = done.get(job.index)
    if (completed && (await exists(resolve(dirname(manifestPath), completed.output)))) {
      rows.push(completed)
      continue
    }
    if (completed) {
      notices.push({code: 'output-missing', message: `--resume: row ${job.index} was completed but ${job.output} is gone; rendering it again`})
    }
    rows.push(pendingRow(job, manifestPath))
  }
  const {finishedAt: _finished, ...kept} = previous
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
  if (previous.rowsSha256 !== identity.rowsSha256) {
    throw refuse(`was written for other rows (batch file ${previous.batchFile}); the rows of ${identity.batchFile} differ`)
  }
  if (previous.outputTemplate !== identity.outputTemplate) {
    throw refuse(`was written for --output "${previous.outputTemplate}", not "${identity.outputTemplate}"`)
  }
  const changed = (Object.keys(identity.settings) as Array<keyof RenderSettings>).filter(
    (key) => previous.settings[key] !== identity.settings[key],
  )
  if (changed.length > 0) {
    const list = changed.map((key) => `${key} ${JSON.stringify(previous.settings[key])} -> ${JSON.stringify(identity.settings[key])}`).join(', ')
    throw refuse(`was rendered with other settings (${list})`)
  }
}

function pendingRow(job: BatchJob, manifestPath: string): ManifestRow {
  return {index: job.index, status: 'pending', output: relative(dirname(manifestPath), job.output), variables: job.variables}
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}
