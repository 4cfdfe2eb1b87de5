import {readFileSync} from 'node:fs'

/** Machine-wide CPU time from /proc/stat: busy and total jiffies, to turn into a utilisation. */
function readCpu() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const idle = fields[3] + fields[4]
  const total = fields.reduce((a, b) => a + b, 0)
  return {busy: total - idle, total}
}

/** Measures `fn` and returns its result with the wall time and the share of all cores it kept busy. */
export async function measure(fn) {
  const before = readCpu()
  const started = performance.now()
  const result = await fn()
  const seconds = (performance.now() - started) / 1000
  const after = readCpu()
  const utilisation = (after.busy - before.busy) / Math.max(1, after.total - before.total)
  return {result, seconds, utilisation}
}
