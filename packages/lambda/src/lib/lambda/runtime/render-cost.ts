import type {HistoryEvent} from '@aws-sdk/client-sfn'
import {estimateCost, type CostEstimate} from '../estimate-cost.js'
import type {InvocationOutcome, InvocationRecord} from './invocation-records.js'

/** Invocations of a render by how they ended; `stopped` ones ran on after the render had ended. */
export type InvocationCounts = Record<InvocationOutcome, number>

/**
 * A render's cost from every invocation's own record (retried attempts, failed chunks and chunks
 * still running when the render stopped included: the history shows none of the last), plus any
 * invocation Lambda ended at its time cap, which could write no record (from the history, at the
 * function's memory). State transitions come from the history once the execution has ended, else
 * from the records: one entered state per invocation, one for the Choice before the Map and one for the Map.
 */
export function costOfInvocations(records: readonly InvocationRecord[], events: readonly HistoryEvent[] | undefined, memoryMb: number): {cost: CostEstimate; invocations: InvocationCounts} {
  const capped = events ? timedOutDurations(events).map((durationMs) => ({durationMs, memoryMb})) : []
  const transitions = events ? events.filter((event) => event.type?.endsWith('StateEntered')).length : records.length + 2
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
