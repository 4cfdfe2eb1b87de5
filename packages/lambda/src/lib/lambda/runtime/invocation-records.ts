import {randomBytes} from 'node:crypto'
import {PutObjectCommand} from '@aws-sdk/client-s3'
import type {InvocationCost} from '../render-records.js'
import type {BucketObjects} from '../s3-objects.js'
import {chunkName, invocationsPrefix} from '../storage-keys.js'

/** How an invocation ended: `stopped` is a chunk that found its render stopped (abandoned work, billed all the same). */
export type InvocationOutcome = 'succeeded' | 'failed' | 'stopped'

export interface InvocationRecord extends InvocationCost {
  action: string
  chunk?: number
  outcome: InvocationOutcome
}

/**
 * Every invocation of a render's function leaves one empty object whose name carries its cost:
 * `renders/<renderId>/invocations/<action>[-chunk-NNNNN].<outcome>.<ms>ms.<mb>mb.<id>`. Retried
 * attempts, chunks that failed and chunks still running when the render was stopped are billed
 * like any other, and the execution history shows none of the last; one listing of 1,000 keys
 * reads the cost of 1,000 invocations without a GET each.
 */
export function invocationKey(renderId: string, record: InvocationRecord): string {
  const who = record.chunk === undefined ? record.action : `${record.action}-${chunkName(record.chunk)}`
  return `${invocationsPrefix(renderId)}${who}.${record.outcome}.${Math.max(0, Math.round(record.durationMs))}ms.${record.memoryMb}mb.${randomBytes(4).toString('hex')}`
}

const KEY_PATTERN = /\/invocations\/([A-Za-z]+)(?:-chunk-(\d+))?\.(succeeded|failed|stopped)\.(\d+)ms\.(\d+)mb\.[0-9a-f]+$/

export function parseInvocationKey(key: string): InvocationRecord | undefined {
  const match = KEY_PATTERN.exec(key)
  if (!match) return undefined
  const [, action, chunk, outcome, durationMs, memoryMb] = match
  return {action, ...(chunk !== undefined && {chunk: Number(chunk)}), outcome: outcome as InvocationOutcome, durationMs: Number(durationMs), memoryMb: Number(memoryMb)}
}

export async function recordInvocation(bucket: BucketObjects, renderId: string, record: InvocationRecord): Promise<void> {
  await bucket.s3.send(new PutObjectCommand({Bucket: bucket.bucketName, Key: invocationKey(renderId, record), Body: ''}))
}

export async function readInvocations(bucket: BucketObjects, renderId: string): Promise<InvocationRecord[]> {
  return (await bucket.listKeys(invocationsPrefix(renderId))).flatMap((key) => parseInvocationKey(key) ?? [])
}
