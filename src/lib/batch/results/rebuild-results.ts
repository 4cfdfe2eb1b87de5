import {readFile, stat} from 'node:fs/promises'
import {dirname, join, resolve} from 'node:path'
import {extractCompositionMetadata} from '../../compose/extract-composition-metadata.js'
import {EngineError} from '../../errors/engine-error.js'
import type {VariableDeclaration} from '../../variables/variable-declaration.js'
import type {ManifestHead, ManifestRow, RowRecord} from '../batch-manifest.js'
import {manifestRows, readJournal, readManifestFile} from '../manifest-file.js'
import {MANIFEST_FILE} from '../preflight.js'
import {STDIN_BATCH, type BatchFormat} from '../rows/batch-format.js'
import {openRowSource, readRows} from '../rows/read-rows.js'
import type {SourceRow} from '../rows/source-row.js'
import {resultsPath, rowColumns} from './batch-results.js'
import {resultRow} from './result-row.js'
import {writeResultSheet, type ResultSheetRow} from './result-sheet.js'
import {RowsHash} from '../rows/rows-hash.js'

export interface RebuildRequest {
  /** The batch's manifest.json, or the folder that holds it. */
  manifest: string
  /** Where the sheet goes (.csv or .jsonl); default results.csv beside the manifest. */
  results?: string
  /** The rows file, when it is no longer where the manifest says (or the batch read standard input). */
  rows?: string
  batchFormat?: BatchFormat
  cwd?: string
}

export interface RebuiltResults {
  results: string
  rows: number
  /** What the sheet could not take from the rows file, said once. */
  notices: string[]
}

/**
 * `engine batch results`: the result sheet again, from a batch's files alone (the manifest, its
 * journal, the rows file), also for a batch that was killed. A projection: the manifest's rows
 * joined with the rows file's, in order, checked to be the rows the batch was run with. Streams:
 * only the journal's records (what changed since the manifest was last written) are held.
 */
export async function rebuildResults(request: RebuildRequest): Promise<RebuiltResults> {
  const cwd = request.cwd ?? process.cwd()
  const manifestPath = await manifestFile(resolve(cwd, request.manifest))
  const head = await readManifestFile(manifestPath, () => {}, 'engine batch results')
  if (!head) throw new EngineError('INVALID_FLAG', `engine batch results: there is no ${manifestPath}; give the manifest.json a batch wrote (or its folder)`, {manifest: manifestPath})
  const sheet = resultsPath(manifestPath, request.results, cwd)
  const overlay = await journalOverlay(manifestPath)
  const notices: string[] = []
  const rowsFile = request.rows === undefined ? head.batchFile : resolve(cwd, request.rows)
  const source = rowsFile === STDIN_BATCH ? undefined : await openRowSource(rowsFile, request.batchFormat, undefined, request.rows === undefined ? 'the manifest\'s batchFile' : '--rows')
  const declarations = source && (await declarationsOf(head))
  if (source) await assertSameRows(head, () => readRows(source, declarations), manifestPath, declarations !== undefined, notices)
  else notices.push('the rows came from standard input: each line takes the row\'s variables and row data from the manifest (pass --rows FILE to take its own columns)')

  const total = Object.values(head.counts).reduce((sum, count) => sum + count, 0)
  const columns = source ? await rowColumns(readRows(source, declarations)) : await rowColumns(asColumns(manifestRows(manifestPath)))
  const directory = dirname(manifestPath)
  let count = 0
  async function* lines(): AsyncGenerator<ResultSheetRow> {
    const rows = source ? readRows(source, declarations) : undefined
    for await (const row of manifestRows(manifestPath, 'engine batch results')) {
      const sourceRow = rows && (await rows.next())
      const own = sourceRow === undefined ? {...row.variables, ...row.data} : sourceRow.done ? {} : (sourceRow.value as SourceRow).columns
      const record = overlay.recordOf(row)
      count++
      yield resultRow({record, columns: own, output: resolve(directory, row.output), poster: record.poster === undefined ? undefined : resolve(directory, record.poster)}, dirname(sheet))
    }
  }
  await writeResultSheet(sheet, columns, lines())
  if (count !== total) notices.push(`the manifest lists ${count} rows but counts ${total}`)
  return {results: sheet, rows: count, notices}
}

async function manifestFile(path: string): Promise<string> {
  const info = await stat(path).catch(() => undefined)
  return info?.isDirectory() ? join(path, MANIFEST_FILE) : path
}

/** The journal's changes over the manifest's rows: the last record of each row, and a skip of the rows still pending. */
async function journalOverlay(manifestPath: string): Promise<{recordOf: (row: ManifestRow) => RowRecord}> {
  const records = new Map<number, string>()
  let skipReason: string | undefined
  await readJournal(
    manifestPath,
    (record) => records.set(record.index, JSON.stringify(record)),
    (reason) => {
      skipReason = reason
      for (const [index, text] of records) if ((JSON.parse(text) as RowRecord).status === 'pending') records.set(index, JSON.stringify({index, status: 'skipped', skippedReason: reason}))
    },
  )
  return {
    recordOf: (row) => {
      const text = records.get(row.index)
      if (text !== undefined) return JSON.parse(text) as RowRecord
      const {output: _output, variables: _variables, data: _data, ...record} = row
      return record.status === 'pending' && skipReason !== undefined ? {index: row.index, status: 'skipped', skippedReason: skipReason} : record
    },
  }
}

/** The composition's declarations, to read the rows as the batch did; undefined when the composition is gone. */
async function declarationsOf(head: ManifestHead): Promise<readonly VariableDeclaration[] | undefined> {
  const html = await readFile(head.composition, 'utf8').catch(() => undefined)
  return html === undefined ? undefined : extractCompositionMetadata(html).variables
}

/** The rows file must hold the rows the batch ran (its hash over the rows as written), else every line would be joined to another row. */
async function assertSameRows(head: ManifestHead, rows: () => AsyncIterable<SourceRow>, manifestPath: string, typed: boolean, notices: string[]): Promise<void> {
  if (!typed) {
    notices.push(`${head.composition} is gone, so the rows could not be checked against the ones the batch ran; they are joined by position`)
    return
  }
  const hash = new RowsHash()
  for await (const row of rows()) hash.add(row.written)
  if (hash.digest() !== head.rowsSha256) {
    throw new EngineError(
      'BATCH_PREFLIGHT',
      `engine batch results: the rows of ${head.batchFile} are not the ones ${manifestPath} was rendered from (the file changed since); pass the rows file the batch ran with as --rows FILE`,
      {manifest: manifestPath, batchFile: head.batchFile},
    )
  }
}

async function* asColumns(rows: AsyncIterable<ManifestRow>): AsyncGenerator<{columns: Record<string, unknown>}> {
  for await (const row of rows) yield {columns: {...row.variables, ...row.data}}
}
