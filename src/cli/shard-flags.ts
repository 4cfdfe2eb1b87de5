import {Flags} from '@oclif/core'
import {EngineError} from '../lib/errors/engine-error.js'
import {resolveShard, SHARD_ENV_VARIABLES, type ShardSpec} from '../lib/shard/shard-spec.js'

/** `--shard I/N` and `--shard-count N`: one worker's part of a batch. They steer one run, so they are not config keys. */
export const shardFlags = {
  shard: Flags.string({
    description: `with --batch: render only the rows whose index mod N is I (0-based), with a manifest of this shard's own; default from the scheduler (${SHARD_ENV_VARIABLES.join(', ')})`,
  }),
  'shard-count': Flags.integer({description: 'with --batch: the number of shards, where the scheduler gives only an index (a Kubernetes Indexed Job: its completions)'}),
}

/** This run's shard, from the flags or (with --batch) the scheduler's variables; undefined for a whole batch. */
export function shardFromFlags(flags: {shard?: string; 'shard-count'?: number}, batch: string | undefined, env: NodeJS.ProcessEnv = process.env): ShardSpec | undefined {
  const given = flags.shard !== undefined ? '--shard' : flags['shard-count'] !== undefined ? '--shard-count' : undefined
  if (!batch) {
    if (given) throw new EngineError('INVALID_FLAG', `${given} only applies to a batch: add --batch <rows.csv>`)
    return undefined
  }
  return resolveShard({shard: flags.shard, shardCount: flags['shard-count'], env})
}
