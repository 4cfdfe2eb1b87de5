import {EngineError} from '../errors/engine-error.js'

/** Where a worker learned which part of the batch is its own. */
export type ShardScheduler = 'flag' | 'kubernetes' | 'cloud-run' | 'aws-batch'

/** One worker's part of a batch: the rows whose index mod `count` is `index` (0-based). */
export interface ShardSpec {
  index: number
  count: number
  scheduler: ShardScheduler
  /** The flags and variables the index and count came from, as a user would name them. */
  from: string
}

/** A shard count past this is a typo, not a fleet (AWS Batch arrays stop at 10,000). */
export const MAX_SHARDS = 100_000

export const SHARD_FLAG = '--shard'
export const SHARD_COUNT_FLAG = '--shard-count'

/**
 * The schedulers' variables, in the order they are looked at. Kubernetes Indexed Jobs give only the
 * index (the count is the Job's `completions`, which no variable carries); AWS Batch gives the
 * array's size to each child as AWS_BATCH_JOB_ARRAY_SIZE.
 */
const SCHEDULERS: ReadonlyArray<{scheduler: Exclude<ShardScheduler, 'flag'>; index: string; count?: string; name: string}> = [
  {scheduler: 'kubernetes', index: 'JOB_COMPLETION_INDEX', name: 'a Kubernetes Indexed Job'},
  {scheduler: 'cloud-run', index: 'CLOUD_RUN_TASK_INDEX', count: 'CLOUD_RUN_TASK_COUNT', name: 'a Cloud Run Job'},
  {scheduler: 'aws-batch', index: 'AWS_BATCH_JOB_ARRAY_INDEX', count: 'AWS_BATCH_JOB_ARRAY_SIZE', name: 'an AWS Batch array job'},
]

export const SHARD_ENV_VARIABLES = SCHEDULERS.flatMap((entry) => (entry.count ? [entry.index, entry.count] : [entry.index]))

export interface ShardInput {
  /** `--shard I/N` as typed. */
  shard?: string
  /** `--shard-count N`: the count where the scheduler gives only an index. */
  shardCount?: number
  env: NodeJS.ProcessEnv
}

/**
 * Which shard this run renders: `--shard I/N` when given, else the first scheduler whose index
 * variable is set, its count from `--shard-count` (which wins) or the scheduler's own variable.
 * Undefined for an unsharded batch. Every malformed or out-of-range value is an INVALID_FLAG that
 * names the flag or variable, the value and the fix.
 */
export function resolveShard(input: ShardInput): ShardSpec | undefined {
  if (input.shard !== undefined) {
    if (input.shardCount !== undefined) throw invalid(`${SHARD_FLAG} ${input.shard} already says how many shards there are; drop ${SHARD_COUNT_FLAG} ${input.shardCount}`, {shard: input.shard})
    const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(input.shard)
    if (!match) throw invalid(`${SHARD_FLAG} "${input.shard}" is not I/N: give this worker's index (from 0) and the number of shards, for example ${SHARD_FLAG} 0/4`, {shard: input.shard})
    const count = wholeNumber(match[2], SHARD_FLAG, input.shard)
    return checked({index: wholeNumber(match[1], SHARD_FLAG, input.shard), count, scheduler: 'flag', from: SHARD_FLAG}, SHARD_FLAG, input.shard)
  }
  const found = SCHEDULERS.find((entry) => (input.env[entry.index] ?? '').trim() !== '')
  if (!found) {
    if (input.shardCount !== undefined) {
      throw invalid(`${SHARD_COUNT_FLAG} ${input.shardCount} needs this worker's index: give ${SHARD_FLAG} I/${input.shardCount}, or run under a scheduler that sets ${SCHEDULERS.map((entry) => entry.index).join(', ')}`, {shardCount: input.shardCount})
    }
    return undefined
  }
  const indexText = input.env[found.index]!
  const index = wholeNumber(indexText, found.index, indexText)
  const countText = found.count === undefined ? undefined : input.env[found.count]?.trim() || undefined
  if (input.shardCount !== undefined) {
    return checked({index, count: countOf(input.shardCount), scheduler: found.scheduler, from: `${found.index} + ${SHARD_COUNT_FLAG}`}, found.index, indexText)
  }
  if (countText === undefined) {
    const own = found.count === undefined ? '' : ` (or set ${found.count})`
    throw invalid(
      `${found.index}=${indexText} says this worker is shard ${indexText} of ${found.name}, but not how many shards there are: add ${SHARD_COUNT_FLAG} N${own}, with N the job's ${found.scheduler === 'kubernetes' ? 'completions' : 'task count'}`,
      {[found.index]: indexText},
    )
  }
  const count = wholeNumber(countText, found.count!, countText)
  return checked({index, count, scheduler: found.scheduler, from: `${found.index}/${found.count}`}, found.index, indexText)
}

/** The rows of shard `index` of `count`: their index in the input mod `count` is `index`. */
export function inShard(row: number, shard: Pick<ShardSpec, 'index' | 'count'> | undefined): boolean {
  return shard === undefined || row % shard.count === shard.index
}

/** `shard 1 of 4 (from CLOUD_RUN_TASK_INDEX/CLOUD_RUN_TASK_COUNT)`. */
export function describeShard(shard: ShardSpec): string {
  return `shard ${shard.index} of ${shard.count} (from ${shard.from})`
}

function countOf(count: number): number {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS) {
    throw invalid(`${SHARD_COUNT_FLAG} ${count} must be a whole number of shards from 1 to ${MAX_SHARDS}`, {shardCount: count})
  }
  return count
}

function wholeNumber(text: string, where: string, value: string): number {
  const trimmed = text.trim()
  if (!/^\d+$/.test(trimmed) || trimmed.length > 9) {
    throw invalid(`${where}${where.startsWith('--') ? ' ' : '='}${JSON.stringify(value)} is not a whole number from 0: a shard index counts from 0`, {[where]: value})
  }
  return Number(trimmed)
}

function checked(spec: ShardSpec, where: string, value: string): ShardSpec {
  const separator = where.startsWith('--') ? ' ' : '='
  if (spec.count < 1 || spec.count > MAX_SHARDS) {
    throw invalid(`${where}${separator}${value}: the number of shards must be from 1 to ${MAX_SHARDS}, not ${spec.count}`, {[where]: value})
  }
  if (spec.index >= spec.count) {
    throw invalid(`${where}${separator}${value}: shard index ${spec.index} is out of range for ${spec.count} shard${spec.count === 1 ? '' : 's'} (indexes count from 0 to ${spec.count - 1})`, {[where]: value, count: spec.count})
  }
  return spec
}

function invalid(message: string, details: Record<string, unknown>): EngineError {
  return new EngineError('INVALID_FLAG', message, details)
}
