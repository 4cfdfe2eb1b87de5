import {readdir} from 'node:fs/promises'
import {join, relative} from 'node:path'

/** Caption files the preview offers: a project has a handful; a folder of thousands is cut here. */
export const MAX_CAPTION_FILES = 200
/** How deep under the composition's folder they are looked for. */
const MAX_DEPTH = 4
const CAPTION_FILE = /\.(vtt|srt)$/i

/**
 * The WebVTT and SubRip files under the composition's folder, as paths relative to it (what a
 * caption variable holds), sorted; dot-files, dot-folders and node_modules are never listed.
 */
export async function listCaptionFiles(pageDir: string): Promise<string[]> {
  const found: string[] = []
  const visit = async (directory: string, depth: number): Promise<void> => {
    const entries = await readdir(directory, {withFileTypes: true}).catch(() => [])
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= MAX_CAPTION_FILES) return
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const path = join(directory, entry.name)
      if (entry.isFile() && CAPTION_FILE.test(entry.name)) found.push(relative(pageDir, path).split('\\').join('/'))
      else if (entry.isDirectory() && depth < MAX_DEPTH) await visit(path, depth + 1)
    }
  }
  await visit(pageDir, 0)
  return found.sort()
}
