import {describe, expect, it} from 'vitest'
import {inShard, resolveShard} from '../../src/lib/shard/shard-spec.js'

const fail = (input: Parameters<typeof resolveShard>[0]) => {
  try {
    resolveShard(input)
  } catch (error) {
    return error as {code: string; message: string}
  }
  throw new Error('expected resolveShard to refuse')
}

describe('resolveShard', () => {
  it('reads --shard I/N and says it came from the flag', () => {
    expect(resolveShard({shard: '1/4', env: {}})).toEqual({index: 1, count: 4, scheduler: 'flag', from: '--shard'})
    expect(resolveShard({shard: ' 0 / 1 ', env: {JOB_COMPLETION_INDEX: '3'}})).toMatchObject({index: 0, count: 1, scheduler: 'flag'})
  })

  it('is undefined without a flag or a scheduler variable (a whole batch)', () => {
    expect(resolveShard({env: {CLOUD_RUN_TASK_COUNT: '4'}})).toBeUndefined()
  })

  it('takes each scheduler index and count from its own variables', () => {
    expect(resolveShard({env: {CLOUD_RUN_TASK_INDEX: '2', CLOUD_RUN_TASK_COUNT: '3'}})).toEqual({index: 2, count: 3, scheduler: 'cloud-run', from: 'CLOUD_RUN_TASK_INDEX/CLOUD_RUN_TASK_COUNT'})
    expect(resolveShard({env: {AWS_BATCH_JOB_ARRAY_INDEX: '9', AWS_BATCH_JOB_ARRAY_SIZE: '10'}})).toMatchObject({index: 9, count: 10, scheduler: 'aws-batch'})
    expect(resolveShard({env: {JOB_COMPLETION_INDEX: '1'}, shardCount: 4})).toEqual({index: 1, count: 4, scheduler: 'kubernetes', from: 'JOB_COMPLETION_INDEX + --shard-count'})
    expect(resolveShard({env: {AWS_BATCH_JOB_ARRAY_INDEX: '1', AWS_BATCH_JOB_ARRAY_SIZE: '10'}, shardCount: 2})).toMatchObject({index: 1, count: 2, from: 'AWS_BATCH_JOB_ARRAY_INDEX + --shard-count'})
  })

  it('an index from the environment with no count says which flag to add', () => {
    const error = fail({env: {JOB_COMPLETION_INDEX: '2'}})
    expect(error.code).toBe('INVALID_FLAG')
    expect(error.message).toContain('JOB_COMPLETION_INDEX=2')
    expect(error.message).toContain('add --shard-count N')
    expect(error.message).toContain('completions')
    expect(fail({env: {AWS_BATCH_JOB_ARRAY_INDEX: '0'}}).message).toContain('add --shard-count N (or set AWS_BATCH_JOB_ARRAY_SIZE)')
  })

  it('names the flag or variable and the value of anything malformed or out of range', () => {
    expect(fail({shard: '4/4', env: {}}).message).toMatch(/--shard 4\/4: shard index 4 is out of range for 4 shards \(indexes count from 0 to 3\)/)
    expect(fail({shard: '1-4', env: {}}).message).toContain('--shard "1-4" is not I/N')
    expect(fail({shard: '-1/4', env: {}}).message).toContain('is not I/N')
    expect(fail({shard: '0/0', env: {}}).message).toContain('the number of shards must be from 1')
    expect(fail({shard: '1/4', shardCount: 4, env: {}}).message).toContain('drop --shard-count 4')
    expect(fail({env: {CLOUD_RUN_TASK_INDEX: 'two', CLOUD_RUN_TASK_COUNT: '4'}}).message).toContain('CLOUD_RUN_TASK_INDEX="two" is not a whole number')
    expect(fail({env: {CLOUD_RUN_TASK_INDEX: '1', CLOUD_RUN_TASK_COUNT: '1.5'}}).message).toContain('CLOUD_RUN_TASK_COUNT="1.5" is not a whole number')
    expect(fail({env: {CLOUD_RUN_TASK_INDEX: '4', CLOUD_RUN_TASK_COUNT: '4'}}).message).toContain('CLOUD_RUN_TASK_INDEX=4: shard index 4 is out of range for 4 shards')
    expect(fail({env: {JOB_COMPLETION_INDEX: '0'}, shardCount: 0}).message).toContain('--shard-count 0 must be a whole number of shards from 1')
    expect(fail({env: {}, shardCount: 3}).message).toContain('--shard-count 3 needs this worker\'s index: give --shard I/3')
  })

  it('splits rows by index mod N, every row in exactly one shard', () => {
    const shards = [0, 1, 2].map((index) => Array.from({length: 10}, (_, row) => row).filter((row) => inShard(row, {index, count: 3})))
    expect(shards).toEqual([[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]])
    expect(inShard(5, undefined)).toBe(true)
  })
})
