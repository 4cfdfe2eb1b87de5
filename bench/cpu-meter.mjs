import {readdirSync, readFileSync} from 'node:fs'
import {availableParallelism} from 'node:os'

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100

/** Machine-wide CPU time from /proc/stat: busy and total jiffies, to turn into a utilisation. */
function readCpu() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const idle = fields[3] + fields[4]
  const total = fields.reduce((a, b) => a + b, 0)
  return {busy: total - idle, total}
}

/**
 * The parent of a process, its own user+sys ticks (`self`), those plus its reaped children's
 * (`ticks`), and its start time (with the pid, a process's identity), or undefined once it is gone.
 */
function readStat(pid) {
  try {
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    const self = Number(fields[11]) + Number(fields[12])
    return {ppid: Number(fields[1]), self, ticks: self + Number(fields[13]) + Number(fields[14]), start: fields[19]}
  } catch {
    return undefined
  }
}

/**
 * CPU seconds spent so far by this process and everything it started that is still running (with
 * what those reaped of their own children). Browsers do not reap all of theirs: their renderer and
 * GPU processes die with the browser unreaped, taking their CPU time with them, so a render's CPU
 * is counted with trackCpu, which samples while the processes live.
 */
export function treeCpuSeconds(root = process.pid) {
  return sum([...treeStats(root).values()].map((stat) => stat.ticks)) / TICKS
}

/**
 * Counts the CPU of this process and of every process it starts while tracking (browsers with their
 * renderer and GPU processes, encoders): each process is sampled every `intervalMs` and keeps its
 * last sampled user+sys time after it exits. At most the last interval of a process that exits is
 * missed, and a process that lives less than one interval entirely. `stop()` returns CPU seconds.
 */
export function trackCpu(intervalMs = 100) {
  const root = process.pid
  const own = () => {
    const usage = process.cpuUsage()
    return (usage.user + usage.system) / 1e6
  }
  const ownBefore = own()
  const seen = new Map()
  const sample = () => {
    for (const [pid, stat] of treeStats(root)) {
      if (pid === root) continue
      const key = `${pid}:${stat.start}`
      seen.set(key, Math.max(seen.get(key) ?? 0, stat.self))
    }
  }
  sample()
  const before = new Map(seen)
  const timer = setInterval(sample, intervalMs)
  return {
    stop() {
      clearInterval(timer)
      sample()
      let ticks = 0
      for (const [key, value] of seen) ticks += value - (before.get(key) ?? 0)
      return own() - ownBefore + ticks / TICKS
    },
  }
}

/**
 * Memory of everything this process started (browsers, encoders), not of itself: the sum of their
 * proportional set sizes (PSS: pages shared between processes counted once), in MiB.
 */
export function childrenMemoryMiB(root = process.pid) {
  const pids = [...treeStats(root).keys()].filter((pid) => pid !== root)
  let kib = 0
  for (const pid of pids) {
    try {
      kib += Number(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m)?.[1] ?? 0)
    } catch {
      // Exited meanwhile.
    }
  }
  return kib / 1024
}

const sum = (values) => values.reduce((a, b) => a + b, 0)

/**
 * The parent of every process seen so far, read once per process: scanning every /proc/<pid>/stat
 * of a busy machine ten times a second cost the bench several ms of CPU a frame, counted as the
 * render's own. A process that outlives its parent leaves the tree, as it did before.
 */
const parents = new Map()

/** `root` and every process below it, each with its stat (see readStat). */
function treeStats(root) {
  const live = new Set()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const pid = Number(name)
    live.add(pid)
    if (!parents.has(pid)) {
      const stat = readStat(pid)
      if (stat) parents.set(pid, stat.ppid)
    }
  }
  const children = new Map()
  for (const [pid, ppid] of parents) {
    if (!live.has(pid)) parents.delete(pid)
    else children.set(ppid, [...(children.get(ppid) ?? []), pid])
  }
  const found = new Map()
  const pending = [root]
  while (pending.length > 0) {
    const pid = pending.pop()
    const stat = readStat(pid)
    if (!stat) continue
    found.set(pid, stat)
    pending.push(...(children.get(pid) ?? []))
  }
  return found
}

/**
 * Measures `fn` and returns its result with the wall time, the share of all cores the machine was
 * busy, and the CPU seconds this process and everything it started spent meanwhile (`cpuSeconds`).
 */
export async function measure(fn) {
  const before = readCpu()
  const cpu = trackCpu()
  const started = performance.now()
  try {
    const result = await fn()
    const seconds = (performance.now() - started) / 1000
    const after = readCpu()
    const utilisation = (after.busy - before.busy) / Math.max(1, after.total - before.total)
    return {result, seconds, utilisation, cpuSeconds: cpu.stop()}
  } finally {
    cpu.stop()
  }
}

/** What a process of a render is, by its command name. */
export const KINDS = ['browser', 'encoder', 'node']
function kindOf(pid, root) {
  if (pid === root) return 'node'
  try {
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
    return comm === 'ffmpeg' ? 'encoder' : comm.startsWith('chrom') || comm.startsWith('headless') ? 'browser' : comm === 'node' ? 'node' : undefined
  } catch {
    return undefined
  }
}

/**
 * Every thread of the tree under `root`: its kind and, from /proc's schedstat, the nanoseconds it
 * has run and has waited runnable on a run queue for a core another thread held.
 */
function readThreads(root) {
  const threads = new Map()
  for (const pid of treeStats(root).keys()) {
    const kind = kindOf(pid, root)
    if (!kind) continue
    let tids
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      try {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number)
        threads.set(tid, {kind, run, wait})
      } catch {
        // Exited meanwhile.
      }
    }
  }
  return threads
}

/**
 * Cores' worth each kind of process ran, and waited for, between two readThreads: running plus
 * waiting is how many cores the render wanted. On a machine of its own a render wanting at least
 * all its cores keeps them busy; wanting fewer, it waits on itself (latency), not on the machine.
 */
function demandBetween(before, after, seconds) {
  const demand = Object.fromEntries(KINDS.map((kind) => [kind, {run: 0, wait: 0}]))
  for (const [tid, now] of after) {
    const then = before.get(tid) ?? {run: 0, wait: 0}
    demand[now.kind].run += Math.max(0, now.run - then.run) / 1e9 / seconds
    demand[now.kind].wait += Math.max(0, now.wait - then.wait) / 1e9 / seconds
  }
  return demand
}

/**
 * Samples, every `intervalMs`, how busy the machine is and how much CPU this process tree used
 * since the previous sample. `stop()` returns the samples: {at (performance.now() ms), machine
 * (0-1 of all cores), tree (cores' worth used by this render's processes), demand (per kind of
 * process, cores' worth run and waited for: see demandBetween)}.
 */
export function sampleCpu(intervalMs = 250) {
  const cores = availableParallelism()
  const root = process.pid
  const samples = []
  let last = {at: performance.now(), machine: readCpu(), tree: treeCpuSeconds(), threads: readThreads(root)}
  const timer = setInterval(() => {
    const now = {at: performance.now(), machine: readCpu(), tree: treeCpuSeconds(), threads: readThreads(root)}
    const seconds = (now.at - last.at) / 1000
    samples.push({
      at: now.at,
      seconds,
      machine: (now.machine.busy - last.machine.busy) / Math.max(1, now.machine.total - last.machine.total),
      // A process whose parent exited before it takes its CPU time out of the tree: never below 0.
      tree: Math.min(cores, Math.max(0, (now.tree - last.tree) / seconds)),
      demand: demandBetween(last.threads, now.threads, seconds),
    })
    last = now
  }, intervalMs)
  return {
    stop() {
      clearInterval(timer)
      return samples
    },
  }
}

/** The 1-minute load average: above the core count, wall-clock figures are not worth much. */
export function loadAverage() {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])
}
