import {Args, Flags} from '@oclif/core'
import {relative} from 'node:path'
import {BaseCommand} from '../../cli/base-command.js'
import {outputStoresFor} from '../../cli/output-stores.js'
import {writeWarning} from '../../cli/render-progress.js'
import {isRemoteTemplate} from '../../lib/batch/remote-output.js'
import {rebuildResults} from '../../lib/batch/results/rebuild-results.js'
import {toEngineError} from '../../lib/errors/engine-error.js'
import {mergeRemoteShards} from '../../lib/shard/merge-remote-shards.js'
import {mergeShards} from '../../lib/shard/merge-shards.js'

export default class BatchMerge extends BaseCommand {
  static override summary = 'Join the shard manifests of a batch rendered with --shard into one manifest.json'
  static override description =
    'Reads every manifest.shard-I-of-N.json in the folder (with its journal) and writes manifest.json as an unsharded run of the batch would have: ' +
    'the same head, every row in input order. A missing or unfinished shard, or one rendered from other inputs, is named and nothing is written (exit 1). ' +
    'It then writes the result sheet (results.csv) from the merged manifest and the rows file. ' +
    'For shards that wrote to S3 (-o s3://…), give the outputs\' folder as a URL: the shard manifests are read from the bucket and manifest.json is put beside them.'
  static override examples = [
    {
      description: 'Two workers (here one after the other) each render their shard of rows.csv into one folder, then the shards are merged',
      command:
        "<%= config.bin %> still index.html --batch rows.csv -o 'shards/{index}.jpg' --shard 0/2 && <%= config.bin %> still index.html --batch rows.csv -o 'shards/{index}.jpg' --shard 1/2 && <%= config.bin %> batch merge shards --json",
    },
  ]
  static override args = {directory: Args.string({description: 'the shared output folder that holds the shard manifests, or the s3:// folder of the outputs', required: true})}
  static override flags = {json: Flags.boolean({description: 'print {manifest, shards, counts, results} (and url, for a bucket) as JSON'})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(BatchMerge)
    const merged = isRemoteTemplate(args.directory)
      ? await mergeRemoteShards(args.directory, await outputStoresFor(this.config, args.directory), process.cwd())
      : await mergeShards(args.directory)
    // The sheet is a projection of the merged manifest and the rows file; a rows file this machine
    // cannot read (the shards ran elsewhere) leaves the merge done and says how to write the sheet.
    const sheet = await rebuildResults({manifest: merged.manifest}).catch((error: unknown) => {
      writeWarning({code: 'results', message: `no result sheet: ${toEngineError(error).message}; write it with engine batch results ${relative(process.cwd(), merged.manifest) || merged.manifest} --rows <the rows file>`})
      return undefined
    })
    if (flags.json) {
      this.log(JSON.stringify({...merged, ...(sheet && {results: sheet.results})}))
      return
    }
    const {completed, failed, skipped} = merged.counts
    const where = 'url' in merged ? `${merged.url} (local copy ${relative(process.cwd(), merged.manifest)})` : relative(process.cwd(), merged.manifest) || merged.manifest
    const results = sheet ? `; results ${relative(process.cwd(), sheet.results) || sheet.results}` : ''
    this.log(`merged ${merged.shards} shards: ${completed} completed, ${failed} failed, ${skipped} skipped; manifest ${where}${results}`)
  }
}
