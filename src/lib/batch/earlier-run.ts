import {stat} from 'node:fs/promises'
import {EngineError} from '../errors/engine-error.js'
import {readManifestFile} from './manifest-file.js'

/**
 * A batch started into a folder whose manifest belongs to an earlier run would silently render
 * every row again and replace that record: it is refused (BATCH_EXISTS, exit status 2) unless the
 * caller says which it wants, `--resume` (keep the completed rows) or `--restart` (all again).
 */
export async function assertNoEarlierRun(manifestPath: string): Promise<void> {
  const info = await stat(manifestPath).catch(() => undefined)
  if (!info) return
  const head = await readManifestFile(manifestPath, () => {}).catch(() => undefined)
  const what = head
    ? `holds an earlier run of a batch (started ${head.createdAt}${head.finishedAt ? `, finished ${head.finishedAt}` : ', not finished'}; ${head.counts.completed} of ${Object.values(head.counts).reduce((sum, count) => sum + count, 0)} rows completed)`
    : 'is already there'
  throw new EngineError(
    'BATCH_EXISTS',
    `${manifestPath} ${what}. Run with --resume to render only the rows it does not record as completed, or with --restart to render every row again (the manifest is replaced); or give --output another folder.`,
    {manifest: manifestPath, ...(head && {counts: head.counts})},
  )
}
