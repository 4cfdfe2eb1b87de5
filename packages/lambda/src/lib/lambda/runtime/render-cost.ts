import type {HistoryEvent} from '@aws-sdk/client-sfn'
import {estimateCost, type CostEstimate} from '../estimate-cost.js'
import type {InvocationOutcome, InvocationRecord} from './invocation-records.js'

/** Invocations of a render by how they ended; `stopped` ones ran on after the render had ended. */
export type InvocationCounts = Record<InvocationOutcome, number>

/**
 * The child workflows a Distributed Map started for the render's chunks (renders with more than 40
 * chunks at once). They bill state transitions the render's own history does not show: one for
 * each child the map starts, and one for every state each child enters.
 */
export interface ChildWorkflows {
  /** Children started so far (the map run's executions that are not pending). */
  started: number
  /** States one child enters from start to end (its chunk task: retries stay in the state). */
  statesEach: number
}

/**
 * Transitions of the child workflows beyond what the rest of the count holds: with the history
 * (`ended`), the render's own states only, so every child's start and states; from the records,
 * each chunk invocation already counts as the state it ran in, so each child's start.
 */
export function childTransitions(children: ChildWorkflows | undefined, ended: boolean): number {
  if (!children) return 0
  return children.started * (ended ? 1 + children.statesEach : 1)
}

/**
 * A render's cost from every invocation's own record (retried attempts, failed chunks and chunks
 * still running when the render stopped included: the history shows none of the last), plus any
 * invocation Lambda ended at its time cap, which could write no record (from the history, at the
 * function's memory). State transitions come from the history once the execution has ended, else
 * from the records: one entered state per invocation, one for the Choice before the Map and one for
 * the Map; plus those of the Distributed Map's child workflows, when it ran the chunks.
 */
export function costOfInvocations(
  records: readonly InvocationRecord[],
  events: readonly HistoryEvent[] | undefined,
  memoryMb: number,
  children?: ChildWorkflows,
): {cost: CostEstimate; invocations: InvocationCounts} {
  const capped = events ? timedOutDurations(events).map((durationMs) => ({durationMs, memoryMb})) : []
  const own = events ? statesEntered(events) : records.length + 2
  const transitions = own + childTransitions(children, events !== undefined)
  const invocations: InvocationCounts = {succeeded: 0, failed: capped.length, stopped: 0}
  for (const record of records) invocations[record.outcome]++
  return {cost: estimateCost([...records, ...capped], transitions), invocations}
}

function timedOutDurations(events: readonly HistoryEvent[]): number[] {
  const started = new Map<number, Date>()
  const durations: number[] = []
  for (const event of events) {
    if (event.type === 'LambdaFunctionStarted' && event.timestamp) started.set(event.id!, event.timestamp)
    else if (event.type === 'LambdaFunctionTimedOut') {
      const start = started.get(event.previousEventId!)
      if (start && event.timestamp) durations.push(event.timestamp.getTime() - start.getTime())
    }
  }
  return durations
}

/** The states the render's own history entered: each a billed transition. */
export function statesEntered(events: readonly HistoryEvent[]): number {
  return events.filter((event) => event.type?.endsWith('StateEntered')).length
}
