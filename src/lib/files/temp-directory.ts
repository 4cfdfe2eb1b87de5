import {createHash} from 'node:crypto'
import {mkdtemp, readdir, rm, stat} from 'node:fs/promises'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'

/** Which machine made a directory: a process of another one (a container sharing /tmp) is not ours to judge. */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8)
const OWNED = /^engine-[a-z0-9-]+?-p(\d+)-h([0-9a-f]{8})-[A-Za-z0-9]{6}$/
/** A directory is swept only when its owner is gone and it has not changed for this long. */
export const SWEEP_AFTER_MS = 10 * 60_000

/**
 * A new private temporary directory, `<tmp>/engine-<kind>-p<pid>-h<host>-XXXXXX`: the name
 * records the process that owns it, so that one left by a killed process can be swept later
 * (sweepTempDirectories) without touching one a live process still uses.
 */
export function makeTempDirectory(kind: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `engine-${kind}-p${process.pid}-h${HOST_TAG}-`))
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, it is another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temporary directories of engine processes of this machine that are gone (killed, or
 * crashed before their cleanup) and left them unchanged for SWEEP_AFTER_MS. Returns what it removed.
 * Several engine processes run at once: a directory whose owner lives is never touched.
 */
export async function sweepTempDirectories(directory: string = tmpdir(), now: number = Date.now()): Promise<string[]> {
  const removed: string[] = []
  const names = await readdir(directory).catch(() => [] as string[])
  for (const name of names) {
    const match = OWNED.exec(name)
    if (!match || match[2] !== HOST_TAG) continue
    const pid = Number(match[1])
    if (pid === process.pid || alive(pid)) continue
    const path = join(directory, name)
    const info = await stat(path).catch(() => undefined)
    if (!info?.isDirectory() || now - info.mtimeMs < SWEEP_AFTER_MS) continue
    await rm(path, {recursive: true, force: true}).then(
      () => removed.push(path),
      () => {},
    )
  }
  return removed
}
