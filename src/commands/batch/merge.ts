import {Args, Flags} from '@oclif/core'
import {relative} from 'node:path'
import {BaseCommand} from '../../cli/base-command.js'
import {mergeShards} from '../../lib/shard/merge-shards.js'

export default class BatchMerge extends BaseCommand {
  static override summary = 'Join the shard manifests of a batch rendered with --shard into one manifest.json'
  static override description =
    'Reads every manifest.shard-I-of-N.json in the folder (with its journal) and writes manifest.json as an unsharded run of the batch would have: ' +
    'the same head, every row in input order. A missing or unfinished shard, or one rendered from other inputs, is named and nothing is written (exit 1).'
  static override examples = ['<%= config.bin %> batch merge renders', '<%= config.bin %> batch merge renders --json']
  static override args = {directory: Args.string({description: 'the shared output folder that holds the shard manifests', required: true})}
  static override flags = {json: Flags.boolean({description: 'print {manifest, shards, counts} as JSON'})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(BatchMerge)
    const merged = await mergeShards(args.directory)
    if (flags.json) {
      this.log(JSON.stringify(merged))
      return
    }
    const {completed, failed, skipped} = merged.counts
    this.log(`merged ${merged.shards} shards: ${completed} completed, ${failed} failed, ${skipped} skipped; manifest ${relative(process.cwd(), merged.manifest) || merged.manifest}`)
  }
}
