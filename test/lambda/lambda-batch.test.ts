import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {openRowSource, readRows} from '../../src/lib/batch/rows/read-rows.js'
import {batchConcurrencyWarning, defaultMaxConcurrent} from '../../packages/lambda/src/lib/lambda/batch/batch-concurrency-warning.js'
import {batchItem} from '../../packages/lambda/src/lib/lambda/batch/batch-items.js'
import {batchStateMachineDefinition} from '../../packages/lambda/src/lib/lambda/batch/batch-state-machine.js'
import {applyTemplate, emulatedDefinition} from '../../packages/lambda/src/lib/lambda/local/emulated-definition.js'
import {LocalMapRun} from '../../packages/lambda/src/lib/lambda/local/local-map-run.js'
import type {VariableDeclaration} from '../../src/lib/variables/variable-declaration.js'

const DECLARATIONS: VariableDeclaration[] = [{id: 'fill', type: 'color', label: 'Fill', default: '#808080'}]
const RENDER_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:engine-render'
const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:engine-render'

async function items(text: string, format: 'jsonl' | 'csv', template = 'out/{index}.mp4') {
  const taken = new Map<string, number>()
  const settings = {batchId: 'mwx0abcd-a1b2c3', run: 1, siteHandle: {siteId: 'c27eaf1e0e0583384fc7b72a'}, bucketName: 'engine-renders', config: {width: 320, height: 180}, outputKeyTemplate: template}
  const made = []
  for await (const row of readRows(await openRowSource('-', format, Readable.from([text])), DECLARATIONS)) made.push(batchItem(row, settings, taken))
  return made
}

describe('a serverless batch: rows, limits and the workflow', () => {
  it('turns each row into an item named by its batch, run and index, or into the error that keeps it from starting', async () => {
    const made = await items(
      [
        '{"outputKey": "a.mp4", "variables": {"fill": "#ff0000"}}',
        '',
        '{"fill": "#00ff00"}',
        'not json',
        '{"outputKey": "../up.mp4"}',
        '{"outputKey": "a.mp4"}',
        JSON.stringify({fill: '#' + 'f'.repeat(300_000)}),
      ].join('\n'),
      'jsonl',
    )
    expect(made[0]).toEqual({
      item: {
        index: 0,
        line: 1,
        renderId: 'mwx0abcd-a1b2c3-r1-0',
        outputKey: 'a.mp4',
        config: {width: 320, height: 180, variables: {fill: '#ff0000'}},
        data: {},
        columns: {outputKey: 'a.mp4', fill: '#ff0000'},
      },
    })
    expect(made[1]).toMatchObject({item: {index: 1, line: 3, outputKey: 'out/1.mp4', config: {variables: {fill: '#00ff00'}}}})
    expect(made.slice(2).map((entry) => ('error' in entry ? entry.error.message : 'started'))).toEqual([
      expect.stringMatching(/^line 4: not valid JSON/),
      expect.stringMatching(/^line 5: "outputKey": "\.\.\/up\.mp4" has a "\.\." segment/),
      'line 6: outputKey "a.mp4" is also the output of line 1; give each row its own',
      expect.stringMatching(/^\[validateConfig\] config: the workflow execution input is \d+ bytes, over the limit of 262144 bytes/),
    ])
  })

  it('reads CSV rows for the cloud with the same rules as locally: an outputKey column, cells typed by the declarations, the template for the rest, row data kept off the page', async () => {
    const made = await items('fill,outputKey,customer\n#112233,,c-1\n#445566,keep/me.mp4,c-2\n', 'csv', 'videos/{customer}.mp4')
    // "customer" is row data: it names the file but is not a variable the page sees.
    expect(made.map((entry) => ('item' in entry ? [entry.item.outputKey, entry.item.config.variables] : entry.error))).toEqual([
      ['videos/c-1.mp4', {fill: '#112233'}],
      ['keep/me.mp4', {fill: '#445566'}],
    ])
  })

  it('warns when the renders at once times the chunks each runs exceed the concurrency, with what fits', () => {
    const planned = {count: 2, planned: true}
    expect(batchConcurrencyWarning(5, planned, {reservedConcurrency: 10})).toBeUndefined()
    expect(batchConcurrencyWarning(50, planned, {unreservedConcurrency: 10})).toBe(
      "--max-concurrent 50 renders x 2 chunks each (planned from the composition) = 100 functions at once, above the account's 10 concurrent executions for unreserved functions: " +
        'chunks above it are throttled: each waits for a free function and is tried again for up to about 36 minutes, then its row fails with Lambda.TooManyRequestsException; ' +
        'a long batch at this setting will lose rows, a short one only runs slower; ' +
        '--max-concurrent 5 fits (10 / 2), or ask AWS for a higher "Concurrent executions" quota (Service Quotas, AWS Lambda)',
    )
    // Already at one render at a time: the advice is about chunks, never "use --max-concurrent 1" again.
    expect(batchConcurrencyWarning(1, {count: 16, planned: false}, {reservedConcurrency: 4})).toMatch(
      /^--max-concurrent 1 renders x up to 16 chunks each \(--max-parallel-chunks; .*\) = 16 functions at once, .*; even one render at a time is too many: use --max-parallel-chunks 4 .*deploy with a higher --concurrency$/,
    )
    expect(batchConcurrencyWarning(50, planned, {})).toBeUndefined()
  })

  it('plans no more renders at once than the function runs with all their chunks: the default --max-concurrent', () => {
    const planned = {count: 2, planned: true}
    // A new account (10 unreserved) and 2 chunks a render: 5 renders, not 50 x 2 = 100 functions.
    expect(defaultMaxConcurrent(planned, {unreservedConcurrency: 10}, 50)).toBe(5)
    expect(batchConcurrencyWarning(defaultMaxConcurrent(planned, {unreservedConcurrency: 10}, 50), planned, {unreservedConcurrency: 10})).toBeUndefined()
    // The reserved concurrency binds when there is one; never below one render, never above the ceiling.
    expect(defaultMaxConcurrent({count: 16, planned: false}, {reservedConcurrency: 4, unreservedConcurrency: 990}, 50)).toBe(1)
    expect(defaultMaxConcurrent(planned, {unreservedConcurrency: 1000}, 50)).toBe(50)
    expect(defaultMaxConcurrent(planned, {}, 50)).toBe(50)
  })

  it('runs rows as a Distributed Map reading JSON Lines from S3, each a nested render it waits for, recorded as it ends', () => {
    const definition = batchStateMachineDefinition(RENDER_ARN, FUNCTION_ARN)
    const rows = definition.States.Rows as Record<string, any>
    expect(rows.ItemReader).toEqual({Resource: 'arn:aws:states:::s3:getObject', ReaderConfig: {InputType: 'JSONL'}, Parameters: {'Bucket.$': '$.bucketName', 'Key.$': '$.itemsKey'}})
    expect(rows.ItemProcessor.ProcessorConfig).toEqual({Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD'})
    expect([rows.MaxConcurrencyPath, rows.ToleratedFailurePercentagePath]).toEqual(['$.maxConcurrent', '$.toleratedFailurePercentage'])
    const render = rows.ItemProcessor.States.RenderRow
    expect(render.Resource).toBe('arn:aws:states:::states:startExecution.sync:2')
    expect(render.Parameters.StateMachineArn).toBe(RENDER_ARN)
    // A failed row is recorded, its webhook called when the batch has one, then it fails its child.
    expect(rows.ItemProcessor.States.RecordFailure.Next).toBe('FailedRowWebhook')
    expect(rows.ItemProcessor.States.FailedRowWebhook.Default).toBe('RowFailed')
    expect(rows.ItemProcessor.States.NotifyFailedRow).toMatchObject({Next: 'RowFailed', ResultPath: null, Catch: [{ErrorEquals: ['States.ALL'], ResultPath: null, Next: 'RowFailed'}]})
    expect(rows.Catch[0].Next).toBe('Finish')
    // Over 256 KiB no state's input ever grows with the rows: they stay in S3.
    expect(JSON.stringify(definition)).not.toContain('ItemsPath')

    const {definition: emulated, maps} = emulatedDefinition(definition, 'arn:aws:states:::engine-local:distributedMap')
    expect(emulated.States.Rows).toMatchObject({Type: 'Task', Next: 'Finish', Catch: rows.Catch, ResultPath: null})
    expect(maps[0]).toMatchObject({name: 'Rows', label: 'Rows', items: {bucketPath: '$.bucketName', keyPath: '$.itemsKey'}, maxConcurrencyPath: '$.maxConcurrent'})
    expect(applyTemplate(rows.ItemSelector, {batchId: 'b', run: 2}, {value: {index: 7}, index: 7})).toEqual({item: {index: 7}, batch: {batchId: 'b', run: 2}})
  })
})

describe('a Distributed Map run on the local stack', () => {
  const arn = 'arn:aws:states:us-east-1:000000000000:stateMachine:engine-render-batch'
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5))

  it('runs at most MaxConcurrency items at once and counts them as AWS does', async () => {
    const run = new LocalMapRun(`${arn}:x`, arn, 'Rows', 3, 100)
    let running = 0
    let most = 0
    await run.run(Array.from({length: 20}, (_, index) => index), async (item) => {
      most = Math.max(most, ++running)
      await pause()
      running--
      if ((item as number) % 5 === 0) throw new Error('row failed')
    })
    expect(most).toBe(3)
    expect(run.counts).toEqual({pending: 0, running: 0, succeeded: 16, failed: 4, timedOut: 0, aborted: 0, total: 20, resultsWritten: 0})
    expect(run.status).toBe('SUCCEEDED')
    expect(run.mapRunArn).toMatch(/^arn:aws:states:us-east-1:000000000000:mapRun:engine-render-batch\/Rows:[0-9a-f-]{36}$/)
  })

  it('fails over the tolerated failure percentage, starts nothing more and stops the items running', async () => {
    const run = new LocalMapRun(`${arn}:y`, arn, 'Rows', 3, 10)
    const stopped: number[] = []
    const outcome = run.run(Array.from({length: 20}, (_, index) => index), async (_item, index, onStop) => {
      if (index > 0) {
        await pause()
        throw new Error('row failed')
      }
      // Row 0 runs until it is stopped.
      await new Promise<void>((_, reject) =>
        onStop(() => {
          stopped.push(index)
          reject(new Error('stopped'))
        }),
      )
    })
    await expect(outcome).rejects.toMatchObject({name: 'States.ExceedToleratedFailureThreshold'})
    expect(run.status).toBe('FAILED')
    // 10 % of 20 rows is 2: the third failure ends the run, row 0 is stopped and the rest never start.
    expect(run.counts.failed).toBe(3)
    expect(stopped).toEqual([0])
    expect(run.counts).toMatchObject({pending: 0, running: 0, succeeded: 0, aborted: 17, total: 20})
  })
})
