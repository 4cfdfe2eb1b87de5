import {execFile} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {promisify} from 'node:util'

const exec = promisify(execFile)

interface ProcessEntry {
  pid: number
  name: string
}

/** Every process descended from `root` (browsers, ffmpeg), with its pid. */
export async function descendants(root = process.pid): Promise<ProcessEntry[]> {
  const {stdout} = await exec('ps', ['-eo', 'pid=,ppid=,comm='])
  const children = new Map<number, {pid: number; name: string}[]>()
  for (const line of stdout.trim().split('\n')) {
    const [pid, ppid, ...name] = line.trim().split(/\s+/)
    const list = children.get(Number(ppid)) ?? []
    list.push({pid: Number(pid), name: name.join(' ')})
    children.set(Number(ppid), list)
  }
  const found: ProcessEntry[] = []
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (child.name !== 'ps') found.push(child)
      visit(child.pid)
    }
  }
  visit(root)
  return found
}

/**
 * Names of the processes descended from this one that were not among `before` (an earlier
 * `descendants()`): what a test started, apart from helpers an earlier file in the same worker left
 * running where files share a process (vitest isolate: false; esbuild keeps its service process).
 */
export async function startedSince(before: readonly ProcessEntry[]): Promise<string[]> {
  const known = new Set(before.map((entry) => entry.pid))
  return (await descendants()).filter((entry) => !known.has(entry.pid)).map((entry) => entry.name)
}

/** Names of every process descended from this one (browsers, ffmpeg). */
export async function descendantProcesses(root = process.pid): Promise<string[]> {
  return (await descendants(root)).map((entry) => entry.name)
}

/** Running (a zombie waiting for its new parent to reap it has ended: it uses nothing). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}
