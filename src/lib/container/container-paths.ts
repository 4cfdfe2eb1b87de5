import {posix, win32} from 'node:path'
import {EngineError} from '../errors/engine-error.js'

/**
 * How host paths appear inside the container. On Linux and macOS a directory is mounted at its own
 * path, so every path a render prints, writes into a manifest or reads from the user is the same on
 * both sides. Windows paths have no such twin and live under /host/<drive>/.
 */
export interface PathMapping {
  toContainer(hostPath: string): string
  toHost(containerPath: string): string
}

const WINDOWS_ROOT = '/host'

export function pathMapping(platform: NodeJS.Platform = process.platform): PathMapping {
  if (platform !== 'win32') return {toContainer: (path) => posix.normalize(path), toHost: (path) => path}
  return {
    toContainer(hostPath) {
      const match = /^([A-Za-z]):[\\/]?(.*)$/.exec(win32.normalize(hostPath))
      if (!match) {
        throw new EngineError('INVALID_FLAG', `--docker: ${hostPath} cannot be mounted into the container; use a path on a drive letter (C:\\...)`, {path: hostPath})
      }
      const rest = match[2].split('\\').filter(Boolean)
      return posix.join(WINDOWS_ROOT, match[1].toLowerCase(), ...rest)
    },
    toHost(containerPath) {
      const match = new RegExp(`^${WINDOWS_ROOT}/([a-z])(/.*)?$`).exec(containerPath)
      if (!match) return containerPath
      return win32.join(`${match[1].toUpperCase()}:\\`, ...(match[2] ?? '').split('/').filter(Boolean))
    },
  }
}
