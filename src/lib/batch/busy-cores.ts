import {cpus} from 'node:os'
import {setTimeout as sleep} from 'node:timers/promises'

/** How long busyCores watches the machine: a few scheduler ticks on every core, short beside a batch. */
export const BUSY_SAMPLE_MS = 250

/** CPU milliseconds the machine's cores had spent, busy and in all, since boot. */
export interface MachineTimes {
  busy: number
  total: number
}

function machineTimes(): MachineTimes {
  let busy = 0
  let total = 0
  for (const {times} of cpus()) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq
    total += all
    busy += all - times.idle
  }
  return {busy, total}
}

/**
 * Cores busy with other work between two samples: the machine's busy share of `cores`, less what
 * this process used itself (`ownCpuMs` over `elapsedMs`). Never below 0.
 */
export function busyCoresBetween(before: MachineTimes, after: MachineTimes, cores: number, ownCpuMs: number, elapsedMs: number): number {
  const total = after.total - before.total
  if (total <= 0 || elapsedMs <= 0) return 0
  return Math.max(0, ((after.busy - before.busy) / total) * cores - ownCpuMs / elapsedMs)
}

/**
 * Cores busy with other work right now, watched for BUSY_SAMPLE_MS. The one-minute load average
 * also counts the engine's own last minute: a batch started right after a render saw one of two
 * cores busy and ran one row at a time on an idle machine.
 */
export async function busyCores(windowMs = BUSY_SAMPLE_MS): Promise<number> {
  const before = machineTimes()
  const ownBefore = process.cpuUsage()
  const started = performance.now()
  await sleep(windowMs)
  const own = process.cpuUsage(ownBefore)
  return busyCoresBetween(before, machineTimes(), cpus().length, (own.user + own.system) / 1000, performance.now() - started)
}
