import {Args, Flags} from '@oclif/core'
import {relative} from 'node:path'
import {BaseCommand} from '../../cli/base-command.js'
import {writeWarning} from '../../cli/render-progress.js'
import {BATCH_FORMATS} from '../../lib/batch/rows/batch-format.js'
import {rebuildResults} from '../../lib/batch/results/rebuild-results.js'

export default class BatchResults extends BaseCommand {
  static override summary = 'Write a batch\'s result sheet again from its manifest and rows file: one line per row, its columns, then status, output, sha256 …'
  static override description =
    'The sheet a batch writes when it ends (results.csv beside manifest.json), rebuilt from the files alone: also for a batch that was killed, or to write it as JSON Lines elsewhere. ' +
    'The rows file must be the one the batch ran (its rows are checked); cells a spreadsheet would run as a formula are escaped.'
  static override examples = [
    {description: 'After a batch (here of stills) that was killed, or to write the sheet elsewhere', command: "<%= config.bin %> still index.html --batch rows.csv -o 'renders/sheet/{index}.png' && <%= config.bin %> batch results renders/sheet --results renders/sheet.jsonl"},
    {description: 'The rows file moved since the batch ran', command: '<%= config.bin %> batch results renders/sheet/manifest.json --rows rows.csv'},
  ]
  static override args = {manifest: Args.string({description: 'the batch\'s manifest.json, or the folder that holds it', required: true})}
  static override flags = {
    results: Flags.string({description: 'where the sheet goes: a .csv or .jsonl file (default results.csv beside the manifest)'}),
    rows: Flags.string({description: 'the rows file the batch ran, when it is no longer where the manifest says (or the batch read standard input)'}),
    'batch-format': Flags.string({description: 'how to read --rows, whatever its extension', options: [...BATCH_FORMATS]}),
    json: Flags.boolean({description: 'print {results, rows, notices} as JSON'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(BatchResults)
    const rebuilt = await rebuildResults({
      manifest: args.manifest,
      results: flags.results,
      rows: flags.rows,
      batchFormat: flags['batch-format'] as (typeof BATCH_FORMATS)[number] | undefined,
    })
    if (flags.json) {
      this.log(JSON.stringify(rebuilt))
      return
    }
    for (const notice of rebuilt.notices) writeWarning({code: 'results', message: notice, level: 'info'})
    this.log(`${relative(process.cwd(), rebuilt.results) || rebuilt.results}: ${rebuilt.rows} rows`)
  }
}
