import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {readRows} from '../../src/lib/batch/rows/read-rows.js'
import type {BatchFormat} from '../../src/lib/batch/rows/batch-format.js'
import {MAX_CELL_CHARS, MAX_COLUMNS, MAX_LINE_BYTES} from '../../src/lib/batch/rows/row-limits.js'

const MB = 1024 * 1024

/** A rows file of `head`, then `fillBytes` of `fill`, then `tail`, made as it is read; counts what was read. */
function hugeSource(head: string, fill: string, fillBytes: number, tail: string) {
  let produced = 0
  const block = Buffer.from(fill.repeat(Math.ceil(64 * 1024 / fill.length)))
  const stream = new Readable({
    read() {
      if (produced === 0) this.push(head)
      if (produced >= fillBytes) {
        this.push(tail)
        this.push(null)
        return
      }
      produced += block.length
      this.push(block)
    },
  })
  return {stream, read: () => produced}
}

async function failure(format: BatchFormat, stdin: Readable): Promise<{code: string; message: string}> {
  try {
    for await (const row of readRows({path: '-', format, stdin}, [])) void row
  } catch (error) {
    return error as {code: string; message: string}
  }
  throw new Error('the rows were read without an error')
}

describe('rows files are read within a cell, line and column limit', () => {
  it('a 200 MB single-cell CSV fails fast, after reading about the line limit', async () => {
    for (const [format, head, fill, tail] of [
      ['csv', 'title\n"', 'x', '"\n'],
      ['csv', 'title\n', 'x', '\n'],
      ['tsv', 'title\n', 'x', '\n'],
      ['jsonl', '{"title": "', 'x', '"}\n'],
      ['json', '[{"title": "', 'x', '"}]'],
    ] as const) {
      const source = hugeSource(head, fill, 200 * MB, tail)
      const error = await failure(format, source.stream)
      expect(error.code, format).toBe('BATCH_LINE_TOO_LONG')
      expect(error.message).toContain(`longer than ${MAX_LINE_BYTES} bytes, the limit`)
      expect(source.read(), format).toBeLessThan(MAX_LINE_BYTES + 4 * MB)
    }
  })

  it('a quoted CSV cell spanning many short lines is bounded too', async () => {
    const source = hugeSource('title\n"', 'line\n', 200 * MB, '"\n')
    expect((await failure('csv', source.stream)).code).toBe('BATCH_LINE_TOO_LONG')
    expect(source.read()).toBeLessThan(MAX_LINE_BYTES + 4 * MB)
  })

  it('a cell past the cell limit, under the line limit, is BATCH_CELL_TOO_LARGE naming the line and column', async () => {
    const cell = 'y'.repeat(MAX_CELL_CHARS + 1)
    for (const [format, text] of [
      ['csv', `title,color\nok,red\n${cell},blue\n`],
      ['jsonl', `{"title": "ok"}\n${JSON.stringify({title: cell})}\n`],
    ] as const) {
      const error = await failure(format, Readable.from([text]))
      expect(error.code, format).toBe('BATCH_CELL_TOO_LARGE')
      expect(error.message).toMatch(/line [23], column "title": the cell has 1000001 characters, over the limit of 1000000/)
    }
  })

  it('more columns than the limit is BATCH_TOO_MANY_COLUMNS, from the header or a row', async () => {
    const names = Array.from({length: 100_000}, (_, index) => `c${index}`)
    const csv = await failure('csv', Readable.from([names.join(',') + '\n' + names.map(() => '1').join(',') + '\n']))
    expect(csv.code).toBe('BATCH_TOO_MANY_COLUMNS')
    expect(csv.message).toContain(`line 1: 100000 columns, over the limit of ${MAX_COLUMNS}`)
    const jsonl = await failure('jsonl', Readable.from([JSON.stringify(Object.fromEntries(names.map((name) => [name, 1]))) + '\n']))
    expect(jsonl.code).toBe('BATCH_TOO_MANY_COLUMNS')
    // Within the limits, rows are read as before.
    const rows = []
    for await (const row of readRows({path: '-', format: 'csv', stdin: Readable.from(['title\nAda\n'])}, [])) rows.push(row.written)
    expect(rows).toEqual([{title: 'Ada'}])
  })
})
