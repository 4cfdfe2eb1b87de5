import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {commonDirectory, preflightBatch, readRows, type BatchJob, type PreflightInput} from '../../src/lib/batch/index.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {parseDeclarations} from '../../src/lib/variables/index.js'
import {parseUnicodeRange} from '../../src/lib/fonts/font-subsets.js'

const {declarations} = parseDeclarations(
  JSON.stringify([
    {id: 'title', type: 'string', label: 'Title', default: 'Card'},
    {id: 'background', type: 'color', label: 'Background', default: '#000000'},
    {id: 'size', type: 'enum', label: 'Size', default: 'small', options: [{value: 'small', label: 'S'}, {value: 'large', label: 'L'}]},
  ]),
)

type Input = Omit<PreflightInput, 'rows'> & {rows: unknown[]}

function input(overrides: Partial<Input>): Input {
  return {
    rows: [],
    template: 'out/{index}.mp4',
    cwd: '/work',
    declarations,
    compositionId: 'card',
    baseVariables: {},
    strict: false,
    compositionFindings: [],
    ...overrides,
  }
}

/** The rows go through the real JSON reader, as a .json batch file's would. */
async function preflight(given: Input) {
  const jobs: BatchJob[] = []
  const rows = readRows({path: '-', format: 'json', stdin: Readable.from([JSON.stringify(given.rows)])}, declarations)
  const result = await preflightBatch({...given, rows}, (job) => {
    jobs.push(job)
  })
  return {...result, jobs}
}

async function preflightError(overrides: Partial<Input>) {
  try {
    await preflight(input(overrides))
  } catch (error) {
    if (isEngineError(error, 'BATCH_PREFLIGHT')) return error
    throw error
  }
  throw new Error('preflight passed')
}

describe('batch preflight', async () => {
  it('turns each row into an output path and the variables it renders with, the base layer under the row', async () => {
    const {jobs, manifestPath} = await preflight(
      input({rows: [{title: 'Ada'}, {title: 'Grace', size: 'large'}], template: 'out/{index}-{title}.mp4', baseVariables: {size: 'small', background: '#112233'}}),
    )
    expect(manifestPath).toBe('/work/out/manifest.json')
    expect(jobs).toEqual([
      {
        index: 0,
        output: '/work/out/0-Ada.mp4',
        overrides: {size: 'small', background: '#112233', title: 'Ada'},
        variables: {title: 'Ada', background: '#112233', size: 'small'},
        columns: {title: 'Ada'},
      },
      {
        index: 1,
        output: '/work/out/1-Grace.mp4',
        overrides: {size: 'large', background: '#112233', title: 'Grace'},
        variables: {title: 'Grace', background: '#112233', size: 'large'},
        columns: {title: 'Grace', size: 'large'},
      },
    ])
  })

  it('puts the manifest in the deepest directory holding every output', async () => {
    const {manifestPath} = await preflight(input({rows: [{size: 'small'}, {size: 'large'}], template: 'renders/{size}/clip-{index}.mp4'}))
    expect(manifestPath).toBe('/work/renders/manifest.json')
    expect(commonDirectory(['/a/b/c', '/a/b/d', '/a/b'])).toBe('/a/b')
    expect(commonDirectory(['/a', '/b'])).toBe('/')
  })

  it('lists every problem of every row in one BATCH_PREFLIGHT error', async () => {
    const error = await preflightError({
      rows: [{title: 'Ada'}, 'Grace', {title: 'Ada'}, {size: 'large'}, null, {title: {first: 'Alan'}}],
      template: 'out/{title}.mp4',
    })
    expect(error.message.split('\n')).toEqual([
      '--batch: 5 problems found before rendering, so nothing was rendered:',
      '  - row 1: must be a JSON object of variable values, got a string',
      '  - row 2, --output: "out/Ada.mp4" is also the output of row 0; make the template unique per row, for example with {index}',
      '  - row 3, --output {title}: the row has no "title" key; add it to every row or remove the placeholder',
      '  - row 4: must be a JSON object of variable values, got null',
      '  - row 5, --output {title}: "title" is an object; only a string, number or boolean can name a file',
      'Fix the batch file (.csv/.tsv with a header of variable ids, .jsonl/.ndjson, or .json; see docs/guides/batch.md), the --output template or the variables, then run again.',
    ])
    expect(error.details).toEqual({count: 5, problems: expect.arrayContaining([{row: 1, reason: expect.any(String)}])})
  })

  it('refuses a template without placeholders for more than one row, and an empty batch', async () => {
    expect((await preflightError({rows: [{}, {}], template: 'out/video.mp4'})).message).toContain('row 1, --output: "out/video.mp4" is also the output of row 0')
    expect((await preflight(input({rows: [{}], template: 'out/video.mp4'}))).jobs).toHaveLength(1)
    expect((await preflightError({rows: []})).message).toContain('the batch file has no rows')
  })

  it('names the first 20 problems and counts the rest, so a broken file of any size gives a readable message', async () => {
    const rows = Array.from({length: 5000}, (_, index) => (index % 2 === 0 ? {title: `t${index}`} : [index]))
    const error = await preflightError({rows, template: 'out/{index}.mp4'})
    const lines = error.message.split('\n')
    expect(lines[0]).toBe('--batch: 2,500 problems found before rendering, so nothing was rendered:')
    expect(lines.slice(1, 21).every((line) => /^ {2}- row \d+: must be a JSON object/.test(line))).toBe(true)
    expect(lines[21]).toBe('  … and 2,480 more')
    expect(error.details).toMatchObject({count: 2500})
  })

  it('names the line and column of a bad CSV cell, and says what a batch file may hold when it has no rows', async () => {
    const csv = 'title,size\nAda,small\n"Bo\nB",huge\n'
    const rows = readRows({path: '-', format: 'csv', stdin: Readable.from([csv])}, declarations)
    const error = (await preflightBatch({...input({strict: true}), rows}, () => {}).catch((caught: unknown) => caught)) as Error
    expect(error.message).toContain('  - row 1 (line 3), "size": [enum-out-of-range] "huge" is not an option')
    expect((await preflightError({rows: []})).message).toMatch(/no rows; it must hold a JSON array of row objects .* \(\.csv, \.tsv\)/)
  })

  it('refuses an output that would overwrite the manifest', async () => {
    expect((await preflightError({rows: [{name: 'manifest'}], template: 'out/{name}.json'})).message).toContain(
      'row 0, --output: "/work/out/manifest.json" is where the batch manifest goes',
    )
  })

  it('with --strict-variables, reports each mismatched row value and the findings shared by every row; other keys are row data, not problems', async () => {
    const rows = [{title: 'Ada'}, {title: 3, size: 'huge'}, {title: 'Alan', colour: '#fff'}, {background: 'red'}]
    const loose = await preflight(input({rows, strict: false}))
    expect(loose.jobs).toHaveLength(4)
    expect(loose.jobs[2]).toMatchObject({data: {colour: '#fff'}, overrides: {title: 'Alan'}})
    expect(loose.jobs[2].variables).not.toHaveProperty('colour')
    expect([loose.dataColumns, loose.dataColumnCount]).toEqual([['colour'], 1])
    const error = await preflightError({
      rows,
      strict: true,
      compositionFindings: [
        {code: 'undeclared', variable: 'x', value: 1, expected: 'one of title', message: '--variables: "x" is not a declared variable', severity: 'error', source: '--variables'},
      ],
    })
    expect(error.message.split('\n').slice(1, -1)).toEqual([
      '  - [undeclared] --variables: "x" is not a declared variable',
      '  - row 1, "title": [type-mismatch] 3 given, expected a string',
      '  - row 1, "size": [enum-out-of-range] "huge" is not an option, expected one of "small", "large"',
      '  - row 3, "background": [type-mismatch] "red" given, expected a "#rrggbb" color string',
    ])
  })
})

describe('batch preflight of row text against the served fonts', async () => {
  // Latin and Cyrillic, as a composition naming only Inter is served (without its Greek subsets here).
  const fontCoverage = parseUnicodeRange('U+0000-00FF,U+0100-02BA,U+0400-045F')!
  const rows = [{title: 'Zoë Łukasz'}, {title: 'Привет'}, {title: 'Ελλάδα 東京'}]

  it('warns about rows with characters no served font has, naming the row, the variable and the characters', async () => {
    const {jobs, warnings} = await preflight(input({rows, fontCoverage}))
    expect(jobs).toHaveLength(3)
    expect(warnings).toEqual([
      {code: 'font-fallback', message: expect.stringMatching(/^row 2, "title": "Ε" "λ" "ά" "δ" "α" "東" "京" are in no served font/)},
    ])
  })

  it('with --strict-fonts refuses the batch before anything renders, with every problem', async () => {
    const error = await preflightError({rows, fontCoverage, strictFonts: true, fontFindings: [{code: 'font-fallback', message: 'font-family "Brand" is missing'}]})
    expect(error.message).toMatch(/2 problems found before rendering/)
    expect(error.message).toContain('[font-fallback] font-family "Brand" is missing')
    expect(error.message).toMatch(/row 2, "title": \[font-fallback\] "Ε"/)
  })
})
