import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {openRowSource, readRows} from '../../src/lib/batch/rows/read-rows.js'
import type {SourceRow} from '../../src/lib/batch/rows/source-row.js'
import type {VariableDeclaration} from '../../src/lib/variables/variable-declaration.js'
import {useScratchDir} from './support.js'

const DECLARATIONS: VariableDeclaration[] = [
  {id: 'title', type: 'string', label: 'Title', default: 'Card'},
  {id: 'count', type: 'number', label: 'Count', default: 1},
  {id: 'dark', type: 'boolean', label: 'Dark', default: false},
  {id: 'background', type: 'color', label: 'Background', default: '#000000'},
]

async function rowsOf(dir: string, name: string, text: string | Buffer, format?: 'json' | 'jsonl' | 'csv' | 'tsv'): Promise<SourceRow[]> {
  const path = join(dir, name)
  await writeFile(path, text)
  const rows: SourceRow[] = []
  for await (const row of readRows(await openRowSource(path, format), DECLARATIONS)) rows.push(row)
  return rows
}

describe('batch rows from CSV, TSV, JSON Lines and JSON', () => {
  const scratch = useScratchDir()

  it('reads RFC 4180 CSV: quoted commas, doubled quotes, newlines inside a field, CRLF and a BOM', async () => {
    const csv = '\uFEFFtitle,count,dark\r\n"Smith, Ada",2,yes\r\n"She said ""hi""",3,0\r\n"two\r\nlines",4,TRUE\r\n'
    const rows = await rowsOf(scratch(), 'rows.csv', csv)
    expect(rows.map((row) => row.values)).toEqual([
      {title: 'Smith, Ada', count: 2, dark: true},
      {title: 'She said "hi"', count: 3, dark: false},
      {title: 'two\r\nlines', count: 4, dark: true},
    ])
    expect(rows.map((row) => [row.index, row.line])).toEqual([
      [0, 2],
      [1, 3],
      [2, 4],
    ])
    expect(rows.every((row) => row.problems.length === 0)).toBe(true)
  })

  it('leaves empty cells out (the default applies), keeps undeclared columns as row data (text) and takes an output column', async () => {
    const rows = await rowsOf(scratch(), 'rows.csv', 'title,count,customer_id,output\nAda,,c-17,out/ada.mp4\n,5,c-18,\n')
    expect(rows.map(({values, data, output}) => ({values, data, output}))).toEqual([
      {values: {title: 'Ada'}, data: {customer_id: 'c-17'}, output: 'out/ada.mp4'},
      {values: {count: 5}, data: {customer_id: 'c-18'}, output: undefined},
    ])
    expect(rows[1].columns).toEqual({title: '', count: '5', customer_id: 'c-18', output: ''})
  })

  it('names the line and column of a cell that does not fit its declaration, and a row with the wrong number of cells', async () => {
    const rows = await rowsOf(scratch(), 'rows.csv', 'title,count,dark\nAda,many,1\n\nBo,2,maybe\nCy,3\n')
    expect(rows.map((row) => ({line: row.line, problems: row.problems}))).toEqual([
      {line: 2, problems: [{field: 'column "count"', reason: '"many" is not a number (variable "count" is a number)'}]},
      {line: 4, problems: [{field: 'column "dark"', reason: '"maybe" is not a boolean; write true/false, 1/0 or yes/no'}]},
      {line: 5, problems: [{reason: 'has 2 cells; the header has 3'}]},
    ])
  })

  it('reads a number cell only as a decimal number: hexadecimal, binary and octal forms and a blank (spaces only) cell are problems, not 16, 1, 7 and 0', async () => {
    const rows = await rowsOf(scratch(), 'rows.csv', 'title,count\nA,0x10\nB,0b1\nC,0o7\nD,   \nE,Infinity\nF, 1e3 \nG,-.5\n')
    expect(rows.map((row) => row.problems.map((problem) => problem.reason))).toEqual([
      ['"0x10" is not a number (variable "count" is a number)'],
      ['"0b1" is not a number (variable "count" is a number)'],
      ['"0o7" is not a number (variable "count" is a number)'],
      ['"   " is not a number (variable "count" is a number)'],
      ['"Infinity" is not a number (variable "count" is a number)'],
      [],
      [],
    ])
    expect(rows.slice(5).map((row) => row.values.count)).toEqual([1000, -0.5])
  })

  it('strips a UTF-8 BOM before the first line of a JSON Lines file, from a file and from standard input', async () => {
    const jsonl = '\uFEFF{"title":"Ada","count":2}\n{"title":"Bo"}\n'
    const fromFile = await rowsOf(scratch(), 'rows.jsonl', jsonl)
    const fromStdin: SourceRow[] = []
    for await (const row of readRows(await openRowSource('-', 'jsonl', Readable.from([jsonl])), DECLARATIONS)) fromStdin.push(row)
    for (const rows of [fromFile, fromStdin]) {
      expect(rows.map((row) => [row.line, row.values, row.problems])).toEqual([
        [1, {title: 'Ada', count: 2}, []],
        [2, {title: 'Bo'}, []],
      ])
    }
  })

  it('types JSON Lines values as CSV cells are, from a file and from standard input: the same problems at the same rows and lines', async () => {
    const csv = 'title,count,dark\nAda,many,1\n\nBo,2,maybe\nCy,"3",yes\n'
    const jsonl = '{"title":"Ada","count":"many","dark":1}\n\n{"title":"Bo","count":2,"dark":"maybe"}\n{"title":"Cy","count":"3","dark":"yes"}\n'
    const fromCsv = await rowsOf(scratch(), 'rows.csv', csv)
    const fromFile = await rowsOf(scratch(), 'rows.jsonl', jsonl)
    const fromStdin: SourceRow[] = []
    for await (const row of readRows(await openRowSource('-', undefined, Readable.from([jsonl])), DECLARATIONS)) fromStdin.push(row)
    const shape = (rows: SourceRow[]) => rows.map((row) => ({index: row.index, line: row.line, reasons: row.problems.map((problem) => problem.reason), values: row.problems.length ? undefined : row.values}))
    expect(shape(fromCsv)).toEqual([
      {index: 0, line: 2, reasons: ['"many" is not a number (variable "count" is a number)'], values: undefined},
      {index: 1, line: 4, reasons: ['"maybe" is not a boolean; write true/false, 1/0 or yes/no'], values: undefined},
      {index: 2, line: 5, reasons: [], values: {title: 'Cy', count: 3, dark: true}},
    ])
    // A JSON number where a boolean is declared is not read as one (1 is a CSV cell's text, not JSON's true).
    expect(shape(fromFile)).toEqual([
      {index: 0, line: 1, reasons: ['"many" is not a number (variable "count" is a number)', '1 is not a boolean; write true/false, 1/0 or yes/no'], values: undefined},
      {index: 1, line: 3, reasons: ['"maybe" is not a boolean; write true/false, 1/0 or yes/no'], values: undefined},
      {index: 2, line: 4, reasons: [], values: {title: 'Cy', count: 3, dark: true}},
    ])
    expect(shape(fromStdin)).toEqual(shape(fromFile))
    expect(fromFile[0].problems.map((problem) => problem.field)).toEqual(['"count"', '"dark"'])
  })

  it('types a JSON array\'s rows too, "" and null meaning the default for a number or boolean, and keeps undeclared keys as row data', async () => {
    const rows = await rowsOf(scratch(), 'rows.json', JSON.stringify([{title: 'Ada', count: '', dark: null, customer_id: 17}, {variables: {count: 'x', email: 'a@b'}, outputKey: 'o.mp4'}]))
    expect(rows[0]).toMatchObject({values: {title: 'Ada'}, data: {customer_id: 17}, problems: []})
    expect(rows[1]).toMatchObject({values: {}, data: {email: 'a@b'}, columns: {outputKey: 'o.mp4', count: 'x', email: 'a@b'}})
    expect(rows[1].problems).toEqual([{field: '"count"', reason: '"x" is not a number (variable "count" is a number)'}])
  })

  it('reads TSV by its extension, and CSV rules apply under --batch-format', async () => {
    expect((await rowsOf(scratch(), 'rows.tsv', 'title\tcount\nA, B\t7\n')).map((row) => row.values)).toEqual([{title: 'A, B', count: 7}])
    expect((await rowsOf(scratch(), 'rows.txt', 'title,count\nAda,1\n', 'csv')).map((row) => row.values)).toEqual([{title: 'Ada', count: 1}])
  })

  it('refuses a header with an empty or repeated name, and an unclosed quote, with the line', async () => {
    await expect(rowsOf(scratch(), 'a.csv', 'title,,count\nA,1,2\n')).rejects.toThrow(/line 1: column 2 of the header has no name/)
    await expect(rowsOf(scratch(), 'b.csv', 'title,title\nA,B\n')).rejects.toThrow(/the header names "title" twice/)
    await expect(rowsOf(scratch(), 'c.csv', 'title\n"open\n')).rejects.toThrow(/not valid CSV/)
  })

  it('reads JSON Lines: blank lines skipped, a bad line named by its number, both row shapes', async () => {
    const text = '{"title":"Ada"}\n\n{"outputKey":"out/bo.mp4","variables":{"title":"Bo"}}\nnot json\n[1]\n'
    const rows = await rowsOf(scratch(), 'rows.jsonl', text)
    expect(rows.map(({index, line, values, output}) => ({index, line, values, output}))).toEqual([
      {index: 0, line: 1, values: {title: 'Ada'}, output: undefined},
      {index: 1, line: 3, values: {title: 'Bo'}, output: 'out/bo.mp4'},
      {index: 2, line: 4, values: {}, output: undefined},
      {index: 3, line: 5, values: {}, output: undefined},
    ])
    expect(rows[2].problems[0].reason).toMatch(/^not valid JSON/)
    expect(rows[3].problems[0].reason).toBe('must be a JSON object of variable values, got an array')
  })

  it('a downloadName field or column names the row\'s download name, not a variable, in every format and both shapes; a non-string is the row\'s problem', async () => {
    const jsonl = '{"title":"Ada","downloadName":"Ada.mp4"}\n{"outputKey":"o/b.mp4","downloadName":"Bo – final.mp4","variables":{"title":"Bo"}}\n{"title":"Cy","downloadName":7}\n{"title":"Di","downloadName":""}\n'
    const rows = await rowsOf(scratch(), 'rows.jsonl', jsonl)
    expect(rows.map(({values, output, downloadName}) => ({values, output, downloadName}))).toEqual([
      {values: {title: 'Ada'}, output: undefined, downloadName: 'Ada.mp4'},
      {values: {title: 'Bo'}, output: 'o/b.mp4', downloadName: 'Bo – final.mp4'},
      {values: {title: 'Cy'}, output: undefined, downloadName: undefined},
      {values: {title: 'Di'}, output: undefined, downloadName: undefined},
    ])
    expect(rows[2].problems).toEqual([{field: '"downloadName"', reason: 'must be a file name such as "Ada.mp4", got a number'}])
    const csv = await rowsOf(scratch(), 'rows.csv', 'title,downloadName\nAda,"Ada, final.mp4"\nBo,\n')
    expect(csv.map(({values, downloadName, problems}) => ({values, downloadName, problems}))).toEqual([
      {values: {title: 'Ada'}, downloadName: 'Ada, final.mp4', problems: []},
      {values: {title: 'Bo'}, downloadName: undefined, problems: []},
    ])
  })

  it('reads a JSON array or {"rows": [...]}, and refuses other shapes saying what is accepted', async () => {
    expect((await rowsOf(scratch(), 'a.json', '[{"title":"Ada"}, 3]')).map((row) => [row.values, row.problems.length])).toEqual([
      [{title: 'Ada'}, 0],
      [{}, 1],
    ])
    expect((await rowsOf(scratch(), 'b.json', '\uFEFF  {"rows": [{"title":"Bo","output":"b.mp4"}]}')).map((row) => [row.values, row.output])).toEqual([[{title: 'Bo'}, 'b.mp4']])
    await expect(rowsOf(scratch(), 'c.json', '{"rows": {"title": "x"}}')).rejects.toThrow(/"rows" must be an array/)
    await expect(rowsOf(scratch(), 'd.json', '"rows"')).rejects.toThrow(/must start with \[ or \{/)
    await expect(rowsOf(scratch(), 'e.json', '[{"title": "x"},')).rejects.toThrow(/not valid JSON/)
    await expect(rowsOf(scratch(), 'f.csv.gz', 'x')).rejects.toThrow(/cannot tell the format from the extension "\.gz"; accepted are .* --batch-format json\|jsonl\|csv\|tsv/)
  })

  it('refuses an output field that could climb out of the output folder', async () => {
    const rows = await rowsOf(scratch(), 'rows.jsonl', '{"title":"A","output":"../../etc/x.mp4"}\n{"title":"B","output":"/abs.mp4"}\n')
    expect(rows.map((row) => row.problems[0]?.reason)).toEqual([expect.stringContaining('has a ".." segment'), expect.stringContaining('is absolute')])
  })

  it('reads rows from standard input as JSON Lines, or in the format given', async () => {
    const read = async (text: string, format?: 'csv') => {
      const rows: SourceRow[] = []
      for await (const row of readRows(await openRowSource('-', format, Readable.from([text])), DECLARATIONS)) rows.push(row)
      return rows.map((row) => row.values)
    }
    expect(await read('{"title":"Ada"}\n{"title":"Bo"}\n')).toEqual([{title: 'Ada'}, {title: 'Bo'}])
    expect(await read('title,count\nCy,3\n', 'csv')).toEqual([{title: 'Cy', count: 3}])
  })

  it('CSV piped to standard input without --batch-format: each row says it looks like CSV and names the flag', async () => {
    const rows: SourceRow[] = []
    for await (const row of readRows(await openRowSource('-', undefined, Readable.from(['title,count\nCy,3\n'])), DECLARATIONS)) rows.push(row)
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row.problems.map((problem) => problem.reason).join('; ')).toMatch(
        /not valid JSON \(.*\); this looks like CSV, and standard input is read as JSON Lines unless --batch-format says otherwise: add --batch-format csv$/,
      )
    }
  })
})
