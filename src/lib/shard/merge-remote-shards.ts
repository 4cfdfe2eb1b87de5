import {rm} from 'node:fs/promises'
import {join, posix} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {journalPath} from '../batch/manifest-file.js'
import {previousJournal} from '../batch/manifest-journal.js'
import {remoteLocation, stagingFolder, type OutputStore} from '../batch/remote-output.js'
import {mergeShards, type MergedBatch} from './merge-shards.js'
import {shardOfFileName} from './shard-files.js'

/**
 * `engine batch merge s3://bucket/videos`: for shards that wrote to a bucket from machines without
 * a shared folder. Each shard puts its manifest beside its outputs when it ends; this downloads
 * them into the local staging folder (`renders/s3/<bucket>/videos`), merges them there, and puts
 * the merged `manifest.json` beside them in the bucket. A shard whose worker never ended has no
 * manifest in the bucket, and is named as missing.
 */
export async function mergeRemoteShards(url: string, stores: readonly OutputStore[], cwd: string): Promise<MergedBatch & {url: string}> {
  const {scheme, bucket, path, store} = remoteLocation(url.endsWith('/') ? url.slice(0, -1) : url, stores, 'engine batch merge')
  if (path.includes('{')) throw new EngineError('INVALID_FLAG', `engine batch merge ${url}: give the folder of the outputs (s3://bucket/videos), not a template`, {url})
  const opened = await store.open(bucket)
  const prefix = `${path}/`
  const folder = join(stagingFolder(cwd, scheme, bucket), ...path.split('/'))
  const keys = (await opened.list(prefix)).filter((key) => !key.slice(prefix.length).includes('/') && shardOfFileName(posix.basename(key)) !== undefined)
  for (const key of keys) {
    const local = join(folder, posix.basename(key))
    // What the bucket holds is the shard's final record: a journal left here by an earlier attempt is not replayed over it.
    await Promise.all([rm(journalPath(local), {force: true}), rm(previousJournal(journalPath(local)), {force: true})])
    await opened.get(key, local)
  }
  const merged = await mergeShards(folder).catch((error: unknown) => {
    if (error instanceof EngineError && keys.length === 0) {
      throw new EngineError('BATCH_MERGE', `${scheme}://${bucket}/${prefix} holds no shard manifests (manifest.shard-I-of-N.json): a shard puts its manifest there when it ends; render the batch with --shard I/N and -o '${scheme}://${bucket}/${prefix}…' first`, {url})
    }
    if (error instanceof EngineError && error.code === 'BATCH_MERGE') {
      throw new EngineError('BATCH_MERGE', `${error.message}\nA shard puts its manifest in ${scheme}://${bucket}/${prefix} when its worker ends, so a shard still running is missing there too.`, error.details)
    }
    throw error
  })
  const manifestKey = `${prefix}manifest.json`
  await opened.put(merged.manifest, manifestKey)
  return {...merged, url: `${scheme}://${bucket}/${manifestKey}`}
}
