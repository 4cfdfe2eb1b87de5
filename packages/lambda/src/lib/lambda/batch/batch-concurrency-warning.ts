import {bindingConcurrency, type ConcurrencyLimits} from '../chunk-plan.js'

/** How many functions one row's render runs at once, and whether that was planned from the composition. */
export interface ChunksPerRender {
  count: number
  /** False when the composition's length is only known at run time: `count` is then the --max-parallel-chunks bound. */
  planned: boolean
}

/**
 * Rows run `maxConcurrent` renders at once and each runs `chunks.count` functions at once. Above
 * the function's reserved concurrency (or the account's unreserved pool, 10 on a new account) the
 * extra chunks are throttled: they wait and are tried again (up to 36 minutes) instead of failing,
 * so the batch is slower than asked for. The warning says by how much and what fits.
 */
export function batchConcurrencyWarning(maxConcurrent: number, chunks: ChunksPerRender, limits: ConcurrencyLimits): string | undefined {
  const binding = bindingConcurrency(limits)
  if (!binding) return undefined
  const {limit, reserved} = binding
  const atOnce = maxConcurrent * chunks.count
  if (atOnce <= limit) return undefined
  const what = reserved ? `the function's reserved concurrency of ${limit}` : `the account's ${limit} concurrent executions for unreserved functions`
  const each = `${chunks.planned ? '' : 'up to '}${chunks.count} chunk${chunks.count === 1 ? '' : 's'} each${chunks.planned ? ' (planned from the composition)' : ' (--max-parallel-chunks; its length is known only when it renders)'}`
  const throttled = 'chunks above it are throttled and wait for a free function (retried for up to 36 minutes), so the batch runs slower than asked but rows do not fail for it'
  const fits = Math.floor(limit / chunks.count)
  const raise = reserved ? `deploy with a higher --concurrency` : 'ask AWS for a higher "Concurrent executions" quota (Service Quotas, AWS Lambda)'
  const advice =
    fits >= 1
      ? `--max-concurrent ${fits} fits (${limit} / ${chunks.count}), or ${raise}`
      : `even one render at a time is too many: use --max-parallel-chunks ${limit} (or fewer, larger chunks), or ${raise}`
  return `--max-concurrent ${maxConcurrent} renders x ${each} = ${atOnce} functions at once, above ${what}: ${throttled}; ${advice}`
}
