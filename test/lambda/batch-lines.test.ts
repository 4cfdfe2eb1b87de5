import {describe, expect, it} from 'vitest'
import {parseBatchLines} from '../../src/lib/lambda/batch-lines.js'
import {concurrencyWarning, startRenderBatch} from '../../src/lib/lambda/start-batch.js'

describe('render-batch lines', () => {
  it('one entry per non-blank line, numbered as in the file; bad lines carry their error', () => {
    const lines = parseBatchLines(['{"outputKey": "a.mp4", "variables": {"name": "Ada"}}', '', '{"outputKey": "b.mp4"}', '[1, 2]', '{"outputKey": "c.mp4", "vars": {}}'].join('\n'))
    expect(lines).toEqual([
      {line: 1, outputKey: 'a.mp4', variables: {name: 'Ada'}},
      {line: 3, outputKey: 'b.mp4', variables: {}},
      {line: 4, outputKey: undefined, error: expect.objectContaining({code: 'INVALID_REQUEST'})},
      {line: 5, outputKey: 'c.mp4', error: expect.objectContaining({message: expect.stringMatching(/^line 5: vars: not a batch field/)})},
    ])
  })

  it('a dry run marks each line would-invoke, or invalid with its error, without a client or a state machine', async () => {
    const entries = await startRenderBatch({
      lines: parseBatchLines('{"outputKey": "a.mp4"}\nnot json\n{"outputKey": "../up.mp4"}\n'),
      siteHandle: {siteId: 'c27eaf1e0e0583384fc7b72a'},
      bucketName: 'engine-renders',
      config: {width: 320, height: 180},
      dryRun: true,
    })
    expect(entries.map((entry) => entry.status)).toEqual(['would-invoke', 'invalid', 'invalid'])
    expect(entries[0].error).toBeUndefined()
    expect(entries[1].error?.message).toMatch(/not valid JSON/)
    expect(entries[2].error?.message).toMatch(/outputKey: "\.\.\/up\.mp4" has a "\.\." segment/)
  })

  it('warns when max-concurrent x maxParallelChunks exceeds the reserved concurrency, suggesting floor(reserved / chunks)', () => {
    expect(concurrencyWarning(50, undefined, {reservedConcurrency: 1000})).toBeUndefined()
    expect(concurrencyWarning(50, 16, {reservedConcurrency: 800})).toBeUndefined()
    expect(concurrencyWarning(50, 16, {reservedConcurrency: 100, unreservedConcurrency: 5000})).toMatch(/--max-concurrent 50 x 16 parallel chunks = 800 functions at once, above the reserved concurrency of 100: .*--max-concurrent 6/)
    // Nothing reserved: the account's pool bounds it.
    expect(concurrencyWarning(2, 16, {unreservedConcurrency: 10})).toMatch(/32 functions at once, above the account's unreserved concurrency of 10: .*--max-concurrent 1, .*quota/)
    expect(concurrencyWarning(50, 16, {})).toBeUndefined()
  })
})
