import {describe, expect, it} from 'vitest'
import {rowDataNotice} from '../../src/lib/batch/row-data-notice.js'
import {csvLine} from '../../src/lib/batch/results/result-sheet.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {MAX_WEBHOOK_DATA_BYTES, parseWebhookData} from '../../src/lib/notify/index.js'

const refusal = (value: unknown, field = '--webhook-data') => {
  try {
    parseWebhookData(value, field)
  } catch (error) {
    if (isEngineError(error, 'INVALID_FLAG')) return error.message
    throw error
  }
  throw new Error('accepted')
}

describe('hostile campaign inputs: --webhook-data, row-data names, result-sheet cells', () => {
  it('--webhook-data takes a JSON object up to 4 KB and refuses the rest, naming the size and the limit', () => {
    expect(parseWebhookData('{"campaign":"spring"}', '--webhook-data')).toEqual({campaign: 'spring'})
    const justFits = JSON.stringify({n: 'x'.repeat(MAX_WEBHOOK_DATA_BYTES - 8)})
    expect(Buffer.byteLength(justFits)).toBe(MAX_WEBHOOK_DATA_BYTES)
    expect(parseWebhookData(justFits, '--webhook-data')).toEqual(JSON.parse(justFits))
    expect(refusal(JSON.stringify({n: 'x'.repeat(MAX_WEBHOOK_DATA_BYTES)}))).toMatch(/is 4,104 bytes; at most 4,096/)
    // Megabytes of text are refused by their size before any parse.
    expect(refusal('{"n":"' + 'x'.repeat(50_000_000) + '"}')).toMatch(/is 50,000,008 bytes/)
    // Multi-byte characters count as the bytes they take.
    expect(refusal(JSON.stringify({n: 'é'.repeat(2100)}))).toMatch(/is 4,208 bytes/)
    expect(refusal('[1]')).toMatch(/must be a JSON object .*, got an array/)
    expect(refusal('"text"')).toMatch(/got a string/)
    expect(refusal('null')).toMatch(/got null/)
    expect(refusal('{"a":')).toMatch(/not valid JSON/)
    // Nesting as deep as 4 KB allows is still just data: parsed, sized and echoed.
    const deep = '{"a":'.repeat(600) + '1' + '}'.repeat(600)
    expect(() => parseWebhookData(deep, '--webhook-data')).not.toThrow()
    expect(refusal({big: 'x'.repeat(5000)}, 'body field "webhook.data"')).toMatch(/^body field "webhook.data": is 5,010 bytes/)
  })

  it('row-data column names reach the terminal quoted with control characters escaped, long names cut, the list bounded', () => {
    const names = ['ok', 'esc\u001b[2Jclear', 'bell\u0007', 'csi\u009b31m', 'quote"back\\slash', 'n'.repeat(500)]
    const notice = rowDataNotice({dataColumns: names, dataColumnCount: 1000})!
    expect(notice.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(notice.message).toContain('"esc\\u001b[2Jclear"')
    expect(notice.message).toContain('"csi\\u009b31m"')
    expect(notice.message).toContain('"quote\\"back\\\\slash"')
    expect(notice.message).toContain(`"${'n'.repeat(80)}…"`)
    expect(notice.message).toContain('and 994 or more more')
  })

  it('every result-sheet cell a spreadsheet would run is text; quotes and newlines cannot break out of a cell', () => {
    expect(csvLine(['=1+1', '+1', '-1', '@A1', '\tx', '\rx', 'plain', 'a,"b"\nc', 12, null, {a: '=x'}])).toBe(
      `'=1+1,'+1,'-1,'@A1,'\tx,"'\rx",plain,"a,""b""\nc",12,,"{""a"":""=x""}"\n`,
    )
  })
})
