import {basename, dirname, join} from 'node:path'
import type {ShardSpec} from './shard-spec.js'

/**
 * Each shard keeps its own manifest beside the batch's `manifest.json`, in the same shared folder:
 * `manifest.shard-1-of-4.json` (and its journal, `manifest.shard-1-of-4.journal.jsonl`), so that
 * workers never write one file and `engine batch merge` finds them all by name.
 */
export function shardManifestPath(manifestPath: string, shard: Pick<ShardSpec, 'index' | 'count'>): string {
  return join(dirname(manifestPath), `${basename(manifestPath, '.json')}.shard-${shard.index}-of-${shard.count}.json`)
}

const SHARD_MANIFEST = /^manifest\.shard-(\d+)-of-(\d+)\.json$/

/** The shard a file name belongs to (`manifest.shard-1-of-4.json`), or undefined for any other file. */
export function shardOfFileName(name: string): {index: number; count: number} | undefined {
  const match = SHARD_MANIFEST.exec(name)
  return match ? {index: Number(match[1]), count: Number(match[2])} : undefined
}
