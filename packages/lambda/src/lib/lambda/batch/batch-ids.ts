import {randomBytes} from 'node:crypto'
import {z} from 'zod'

export const batchIdSchema = z.string().regex(/^[a-z0-9]{6,16}-[a-f0-9]{6}$/, 'must be a batch id printed by `engine lambda render-batch`')

/** Time-ordered (base 36 milliseconds) and unique (random suffix), short enough to prefix render ids. */
export function newBatchId(): string {
  return `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`
}

/** Renders of run `run` are named `<batchId>-r<run>-<index>`: unique, and telling which batch and row they are. */
export function batchRenderId(batchId: string, run: number, index: number): string {
  return `${batchId}-r${run}-${index}`
}

/** The batch and row a render belongs to, from its id; undefined for a render of no batch. */
export function batchRowOf(renderId: string): {batchId: string; run: number; index: number} | undefined {
  const match = /^(.+)-r(\d+)-(\d+)$/.exec(renderId)
  if (!match || !batchIdSchema.safeParse(match[1]).success) return undefined
  return {batchId: match[1], run: Number(match[2]), index: Number(match[3])}
}
