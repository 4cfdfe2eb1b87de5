import {bindingConcurrency, type ConcurrencyLimits} from '../chunk-plan.js'

/** How many functions one row's render runs at once, and whether that was planned from the composition. */
export interface ChunksPerRender {
  count: number
  /** False when the composition's length is only known at run time: `count` is then the --max-parallel-chunks bound. */
  planned: boolean
}

/**
 * The renders a batch runs at once unless told: as many as the function can run with every chunk
 * of each (its reserved concurrency, else the account's unreserved pool, 10 on a new account),
 * divided by the chunks per render, at least 1 and at most `ceiling` (the default without limits).
 */
export function defaultMaxConcurrent(chunks: ChunksPerRender, limits: ConcurrencyLimits, ceiling: number): number {
  const binding = bindingConcurrency(limits)
  if (!binding) return ceiling
  return Math.min(ceiling, Math.max(1, Math.floor(binding.limit / chunks.count)))
}

/**
 * Rows run `maxConcurrent` renders at once and each runs `chunks.count` functions at once. Above
 * the function's reserved concurrency (or the account's unreserved pool) the extra chunks are
 * throttled: each waits and is tried again for up to about 36 minutes (THROTTLE_RETRY), and a chunk
 * still throttled then fails its row with Lambda.TooManyRequestsException. The warning says so and
 * what fits.
 */
export function batchConcurrencyWarning(maxConcurrent: number, chunks: ChunksPerRender, limits: ConcurrencyLimits): string | undefined {
  const binding = bindingConcurrency(limits)
  if (!binding) return undefined
  const {limit, reserved} = binding
  const atOnce = maxConcurrent * chunks.count
  if (atOnce <= limit) return undefined
  const what = reserved ? `the function's reserved concurrency of ${limit}` : `the account's ${limit} concurrent executions for unreserved functions`
  const each = `${chunks.planned ? '' : 'up to '}${chunks.count} chunk${chunks.count === 1 ? '' : 's'} each${chunks.planned ? ' (planned from the composition)' : ' (--max-parallel-chunks; its length is known only when it renders)'}`
  const throttled =
    'chunks above it are throttled: each waits for a free function and is tried again for up to about 36 minutes, then its row fails with Lambda.TooManyRequestsException; ' +
    'a long batch at this setting will lose rows, a short one only runs slower'
  const fits = Math.floor(limit / chunks.count)
  const raise = reserved ? `deploy with a higher --concurrency` : 'ask AWS for a higher "Concurrent executions" quota (Service Quotas, AWS Lambda)'
  const advice =
    fits >= 1
      ? `--max-concurrent ${fits} fits (${limit} / ${chunks.count}), or ${raise}`
      : `even one render at a time is too many: use --max-parallel-chunks ${limit} (or fewer, larger chunks), or ${raise}`
  return `--max-concurrent ${maxConcurrent} renders x ${each} = ${atOnce} functions at once, above ${what}: ${throttled}; ${advice}`
}
