import {stat} from 'node:fs/promises'
import {fileSha256} from '../files/file-sha256.js'
import {projectFile} from '../sandbox/project-file.js'
import type {CacheInput} from './cache-entry.js'

/** Hashes of files by path, size and modification time: a batch's rows read the same assets. */
const known = new Map<string, string>()
const MAX_KNOWN = 10_000

/** fileSha256, remembered while the file's stamp stays the same; a path that is no regular file throws. */
async function inputSha256(path: string): Promise<string> {
  const info = await stat(path)
  const stamp = `${path}\u0000${info.size}\u0000${info.mtimeMs}\u0000${info.ino}`
  const earlier = known.get(stamp)
  if (earlier) return earlier
  const digest = await fileSha256(path)
  if (digest === undefined) throw new Error(`${path} is not a regular file`)
  if (known.size >= MAX_KNOWN) known.clear()
  known.set(stamp, digest)
  return digest
}

/** The project files a render read (PageRequests.projectFilesRead), as an entry records them. */
export async function recordInputs(read: ReadonlyMap<string, string | null>): Promise<CacheInput[]> {
  const inputs: CacheInput[] = []
  for (const [urlPath, path] of [...read].sort(([a], [b]) => (a < b ? -1 : 1))) {
    inputs.push({path: urlPath.replace(/^\/+/, ''), sha256: path === null ? null : await inputSha256(path)})
  }
  return inputs
}

/**
 * The first recorded input whose content in `projectDir` differs now (edited, added or removed),
 * or undefined when all are as they were. Paths are looked up as the page's requests are, so a
 * recorded path cannot reach outside the project.
 */
export async function changedInput(inputs: readonly CacheInput[], projectDir: string): Promise<string | undefined> {
  for (const input of inputs) {
    const found = await projectFile(projectDir, '/' + input.path)
    const now = found.kind === 'file' ? await inputSha256(found.path).catch(() => null) : null
    if (now !== input.sha256) return input.path
  }
  return undefined
}
