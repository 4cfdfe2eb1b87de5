import {mkdtempSync, readdirSync, rmSync, statfsSync} from 'node:fs'
import {join} from 'node:path'
import {isAlive} from './child-processes.js'

const SHM = '/dev/shm'
const TMPFS_MAGIC = 0x01021994
const PREFIX = 'engine-test-tmp-p'
/** What a run holds in temporary files at its peak (the Lambda bundle files: about 1 GB at once), with room to spare. */
const NEEDED_BYTES = 4 * 1024 ** 3

/**
 * A temporary directory for the run in memory, where the machine has a roomy tmpfs at /dev/shm;
 * undefined otherwise (the run then keeps the system's). The suite creates and removes files by the
 * thousand (frames, segments, projects, caches): on this machine's ext4 /tmp, allocating
 * their inodes cost a sixth of the CPU of the render tests (75 -> 63 CPU-s, 52 -> 44 s for five
 * render files, measured twice). Folders of earlier runs that were killed before their teardown
 * are removed here, since their memory stays taken until then.
 */
export function memoryScratchRoot(): string | undefined {
  try {
    if (statfsSync(SHM).type !== TMPFS_MAGIC) return undefined
    for (const name of readdirSync(SHM)) {
      const pid = name.startsWith(PREFIX) ? Number.parseInt(name.slice(PREFIX.length), 10) : NaN
      if (pid > 0 && !isAlive(pid)) rmSync(join(SHM, name), {recursive: true, force: true})
    }
    const space = statfsSync(SHM)
    if (space.bavail * space.bsize < NEEDED_BYTES) return undefined
    return mkdtempSync(join(SHM, `${PREFIX}${process.pid}-`))
  } catch {
    return undefined
  }
}
