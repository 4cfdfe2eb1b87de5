import {execFile} from 'node:child_process'
import {promisify} from 'node:util'

const exec = promisify(execFile)

/** Names of every process descended from this one (browsers, ffmpeg). */
export async function descendantProcesses(root = process.pid): Promise<string[]> {
  const {stdout} = await exec('ps', ['-eo', 'pid=,ppid=,comm='])
  const children = new Map<number, {pid: number; name: string}[]>()
  for (const line of stdout.trim().split('\n')) {
    const [pid, ppid, ...name] = line.trim().split(/\s+/)
    const list = children.get(Number(ppid)) ?? []
    list.push({pid: Number(pid), name: name.join(' ')})
    children.set(Number(ppid), list)
  }
  const names: string[] = []
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (child.name !== 'ps') names.push(child.name)
      visit(child.pid)
    }
  }
  visit(root)
  return names
}
