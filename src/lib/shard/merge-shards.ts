import {readdir, rm} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {isDeepStrictEqual} from 'node:util'
import {EngineError} from '../errors/engine-error.js'
import {ROW_STATUSES, type BatchManifest, type ManifestHead, type ManifestRow, type StatusCounts} from '../batch/batch-manifest.js'
import {journalPath, readManifest, writeManifestFile} from '../batch/manifest-file.js'
import {previousJournal} from '../batch/manifest-journal.js'
import {MANIFEST_FILE} from '../batch/preflight.js'
import {shardManifestPath, shardOfFileName} from './shard-files.js'

export interface MergedBatch {
  /** The merged `manifest.json`. */
  manifest: string
  shards: number
  counts: StatusCounts
}

/**
 * What makes two shards parts of one batch: the fields every shard's head must share. The paths of
 * the composition and the rows file are left out: workers on other machines may hold the same
 * files elsewhere, and their content is in the hashes.
 */
const IDENTITY = ['compositionSha256', 'compositionFiles', 'baseVariables', 'rowsSha256', 'outputTemplate', 'settings'] as const

/**
 * `engine batch merge DIR`: joins the shard manifests of one batch (`manifest.shard-I-of-N.json`,
 * each with its journal replayed) into the `manifest.json` an unsharded run of the batch would have
 * written: the same head and every row in input order. Refused (BATCH_MERGE, nothing written) when
 * a shard is missing, has not finished, or belongs to another batch, naming each such shard.
 */
export async function mergeShards(directory: string): Promise<MergedBatch> {
  const folder = resolve(directory)
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    throw new EngineError('BATCH_MERGE', `cannot read ${folder} (${error.code ?? error.message}): give the folder that holds the shard manifests`, {directory: folder})
  })
  const found = names.flatMap((name) => shardOfFileName(name) ?? [])
  if (found.length === 0) {
    throw new EngineError('BATCH_MERGE', `${folder} holds no shard manifests (manifest.shard-I-of-N.json): render the batch with --shard I/N (or a scheduler's index) into this folder first`, {directory: folder})
  }
  const counts = [...new Set(found.map((shard) => shard.count))].sort((a, b) => a - b)
  if (counts.length > 1) {
    throw new EngineError(
      'BATCH_MERGE',
      `${folder} holds shard manifests of ${counts.join(' and ')} shards (${counts.map((count) => `manifest.shard-*-of-${count}.json`).join(', ')}): remove the ones of the earlier run, then merge again`,
      {directory: folder, counts},
    )
  }
  const count = counts[0]
  const manifestPath = join(folder, MANIFEST_FILE)
  const problems: string[] = []
  const shards: BatchManifest[] = []
  for (let index = 0; index < count; index++) {
    const path = shardManifestPath(manifestPath, {index, count})
    const shard = await readManifest(path)
    const problem = shardProblem(shard, index, count, shards[0])
    if (problem) problems.push(`  - shard ${index} of ${count}: ${problem}`)
    else shards.push(shard!)
  }
  if (problems.length > 0) {
    throw new EngineError('BATCH_MERGE', `cannot merge ${folder}: ${problems.length} of ${count} shards are not ready, so nothing was written:\n${problems.join('\n')}`, {
      directory: folder,
      count,
      problems,
    })
  }

  const rows = shards.flatMap((shard) => shard.rows).sort((a, b) => a.index - b.index)
  const gap = rows.findIndex((row, position) => row.index !== position)
  if (gap !== -1) {
    throw new EngineError('BATCH_MERGE', `cannot merge ${folder}: the shards hold no row ${gap} of the batch (rows ${rows.length}); render the batch again with the same shard count`, {directory: folder, row: gap})
  }
  const head = mergedHead(shards)
  // A journal left by an unsharded run of this folder would be replayed over the merged rows.
  await Promise.all([rm(journalPath(manifestPath), {force: true}), rm(previousJournal(journalPath(manifestPath)), {force: true})])
  await writeManifestFile(manifestPath, head, iterate(rows))
  return {manifest: manifestPath, shards: count, counts: head.counts as StatusCounts}
}

function shardProblem(shard: BatchManifest | undefined, index: number, count: number, first: BatchManifest | undefined): string | undefined {
  const name = `manifest.shard-${index}-of-${count}.json`
  if (!shard) return `missing: there is no ${name}; run it with --shard ${index}/${count} (or as index ${index} of the job)`
  if (!shard.shard || shard.shard.index !== index || shard.shard.count !== count) return `${name} is not the manifest of shard ${index}/${count}; render that shard again`
  if (shard.finishedAt === undefined) {
    const unfinished = (['pending', 'running'] as const).map((status) => `${shard.counts[status] ?? 0} ${status}`).join(', ')
    return `unfinished: ${name} has not ended (${unfinished}); its worker is still running or was stopped: wait for it, or run that shard again with --resume`
  }
  const stray = shard.rows.find((row) => row.index % count !== index)
  if (stray) return `${name} holds row ${stray.index}, which belongs to shard ${stray.index % count}; render that shard again`
  if (first) {
    const other = IDENTITY.find((key) => !isDeepStrictEqual(shard[key], first[key]))
    if (other) return `was rendered with another ${other} than shard 0 (a different batch): render it again with the same command and inputs`
  }
  return undefined
}

/** The head an unsharded run would have written: shard 0's identity, the counts summed, its first start and last end. */
function mergedHead(shards: BatchManifest[]): ManifestHead {
  const {rows: _rows, shard: _shard, webhook: _webhook, ...first} = shards[0]
  const counts = Object.fromEntries(ROW_STATUSES.map((status) => [status, shards.reduce((sum, shard) => sum + (shard.counts[status] ?? 0), 0)])) as StatusCounts
  const earliest = (values: string[]) => values.reduce((a, b) => (b < a ? b : a))
  const latest = (values: string[]) => values.reduce((a, b) => (b > a ? b : a))
  return {
    ...first,
    createdAt: earliest(shards.map((shard) => shard.createdAt)),
    updatedAt: latest(shards.map((shard) => shard.updatedAt)),
    finishedAt: latest(shards.map((shard) => shard.finishedAt!)),
    counts,
  }
}

async function* iterate(rows: ManifestRow[]): AsyncGenerator<ManifestRow> {
  yield* rows
}
