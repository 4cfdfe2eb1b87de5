import {join} from 'node:path'
import type {FormatPlugin} from './format-plugin.js'

/** Where worker `index` writes its segment inside a render's work directory. */
export function segmentPath(workDir: string, plugin: FormatPlugin, index: number): string {
  const name = `segment-${String(index).padStart(4, '0')}`
  switch (plugin.worker) {
    case 'video-segment':
      return join(workDir, name + plugin.segmentExtension)
    case 'image-stream':
      return join(workDir, `${name}.images`)
    case 'frame-files':
      return join(workDir, name)
  }
}
