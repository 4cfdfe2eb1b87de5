import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {readdir, stat} from 'node:fs/promises'
import {join, relative, sep} from 'node:path'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

export interface SiteFile {
  /** Path inside the project, with forward slashes. */
  path: string
  absolutePath: string
  size: number
  sha256: string
}

/** Never part of a site: dependencies, dot-files (.git, .env) and local render outputs. */
const SKIPPED_NAMES = new Set(['node_modules'])
const SKIPPED_TOP_LEVEL = new Set(['renders'])

/** Every file of the project that a render may load, sorted by path. */
export async function listSiteFiles(projectDir: string): Promise<SiteFile[]> {
  const info = await stat(projectDir).catch(() => undefined)
  if (!info?.isDirectory()) {
    throw new EngineError('COMPOSITION_NOT_FOUND', `projectDir: "${projectDir}" is not a directory; pass the folder that holds the composition's index.html`, {
      projectDir,
    })
  }
  const files: SiteFile[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, {withFileTypes: true})) {
      const absolutePath = join(dir, entry.name)
      const path = relative(projectDir, absolutePath).split(sep).join('/')
      if (entry.name.startsWith('.') || SKIPPED_NAMES.has(entry.name) || (dir === projectDir && SKIPPED_TOP_LEVEL.has(entry.name))) continue
      const target = entry.isSymbolicLink() ? await stat(absolutePath).catch(() => undefined) : entry
      if (target?.isDirectory()) await walk(absolutePath)
      else if (target?.isFile()) files.push({path, absolutePath, ...(await hashFile(absolutePath))})
    }
  }
  await walk(projectDir)
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/**
 * The content address of a site: a hash over every file's path and content hash. The same files
 * give the same id on any machine, whatever their timestamps; any change gives a new id.
 */
export function siteIdOf(files: readonly SiteFile[]): string {
  const hash = createHash('sha256')
  for (const file of files) hash.update(`${file.sha256} ${file.path}\n`)
  return hash.digest('hex').slice(0, 24)
}

export async function hashFile(path: string): Promise<{size: number; sha256: string}> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return {size, sha256: hash.digest('hex')}
}
