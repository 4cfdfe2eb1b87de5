import {watch, type FSWatcher} from 'node:fs'
import {join, relative, sep} from 'node:path'

export interface DirectoryWatcher {
  close(): void
}

/** Changes arriving this close together are reported once (an editor's save is several events). */
const SETTLE_MS = 80
const IGNORED_SEGMENTS = new Set(['node_modules', '.git'])

/**
 * Calls `onChange` with the changed files (relative to `root`) after edits under `directory`
 * settle. Recursive where the platform supports it (macOS, Windows, Linux on Node 20+).
 */
export function watchDirectory(directory: string, root: string, onChange: (files: string[]) => void): DirectoryWatcher {
  let pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  const watcher: FSWatcher = watch(directory, {recursive: true}, (_event, name) => {
    if (!name || name.split(/[\\/]/).some((segment) => IGNORED_SEGMENTS.has(segment))) return
    pending.add(relative(root, join(directory, name)).split(sep).join('/'))
    clearTimeout(timer)
    timer = setTimeout(() => {
      const files = [...pending].sort()
      pending = new Set()
      onChange(files)
    }, SETTLE_MS)
  })
  // A watcher error (the directory was removed) must not crash the preview; reloads just stop.
  watcher.on('error', () => watcher.close())
  return {
    close() {
      clearTimeout(timer)
      watcher.close()
    },
  }
}
