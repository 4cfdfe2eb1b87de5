// Pure: no Node or DOM imports. The in-page runtime bundles this file too.

export interface TimingItem {
  key: string
  id?: string
  /** Seconds relative to the parent's start, or "starts when the clip with this id ends". */
  start: number | {after: string}
  /** Seconds; unknown until a media probe when absent. */
  duration?: number
  /** Key of the enclosing sub-composition host. Ids are looked up among items with the same parent. */
  parentKey?: string
}

export interface ResolvedTiming {
  /** Absolute start in seconds; undefined when it depends on something unknown or broken. */
  start?: number
  end?: number
}

export type TimingFinding =
  | {kind: 'unknown-reference'; key: string; reference: string}
  | {kind: 'cycle'; key: string; chain: string[]}
  | {kind: 'missing-duration'; key: string; reference: string}
  | {kind: 'unknown-parent'; key: string; parentKey: string}

export interface TimingResolution {
  timings: Record<string, ResolvedTiming>
  findings: TimingFinding[]
}

/**
 * Absolute start and end of every item. `{after: id}` starts where that item ends; starts of items
 * inside a host are relative to the host's start. Broken references and cycles are reported as
 * findings and leave the affected starts undefined, so one bad clip never hides the others.
 */
export function resolveTiming(items: readonly TimingItem[]): TimingResolution {
  const byKey = new Map(items.map((item) => [item.key, item]))
  const timings: Record<string, ResolvedTiming> = {}
  const findings: TimingFinding[] = []
  const done = new Set<string>()
  const reportedCycles = new Set<string>()
  const stack: string[] = []

  const lookup = (parentKey: string | undefined, id: string) =>
    items.find((item) => item.id === id && item.parentKey === parentKey)

  const label = (key: string) => byKey.get(key)?.id ?? key

  const visit = (item: TimingItem): ResolvedTiming => {
    if (done.has(item.key)) return timings[item.key]
    const cycleAt = stack.indexOf(item.key)
    if (cycleAt >= 0) {
      const members = stack.slice(cycleAt)
      const signature = [...members].sort().join('\u0000')
      if (!reportedCycles.has(signature)) {
        reportedCycles.add(signature)
        findings.push({kind: 'cycle', key: item.key, chain: [...members, item.key].map(label)})
      }
      return {}
    }
    stack.push(item.key)
    const start = startOf(item)
    stack.pop()
    const timing: ResolvedTiming =
      start === undefined ? {} : item.duration === undefined ? {start} : {start, end: start + item.duration}
    timings[item.key] = timing
    done.add(item.key)
    return timing
  }

  const startOf = (item: TimingItem): number | undefined => {
    if (typeof item.start === 'number') {
      const base = parentStart(item)
      return base === undefined ? undefined : base + item.start
    }
    const reference = item.start.after
    const target = lookup(item.parentKey, reference)
    if (!target) {
      findings.push({kind: 'unknown-reference', key: item.key, reference})
      return undefined
    }
    const inCycle = stack.includes(target.key)
    const targetTiming = visit(target)
    if (inCycle || targetTiming.start === undefined) return undefined
    if (targetTiming.end === undefined) {
      findings.push({kind: 'missing-duration', key: item.key, reference})
      return undefined
    }
    return targetTiming.end
  }

  const parentStart = (item: TimingItem): number | undefined => {
    if (item.parentKey === undefined) return 0
    const parent = byKey.get(item.parentKey)
    if (!parent) {
      findings.push({kind: 'unknown-parent', key: item.key, parentKey: item.parentKey})
      return 0
    }
    return visit(parent).start
  }

  for (const item of items) visit(item)
  return {timings, findings}
}
