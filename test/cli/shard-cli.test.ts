import {readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest} from '../../src/lib/batch/index.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

const CARD = join(REPO_ROOT, 'test/batch/fixtures/card.html')

describe('engine still/render --batch --shard and engine batch merge, as a user runs them', PROCESSES, () => {
  const scratch = useScratchDir('engine-shard-cli-')

  async function rows(): Promise<string> {
    const path = join(scratch(), 'rows.json')
    await writeFile(path, JSON.stringify([{title: 'A'}, {title: 'B'}, {title: 'C'}]))
    return path
  }

  it('still --batch renders the shard the scheduler names, says so, and merge names the shard still missing', async () => {
    const out = join(scratch(), 'stills')
    const run = await runCli(['still', CARD, '--batch', await rows(), '-o', join(out, '{index}.png'), '--scale', '0.5', '--json'], {
      cwd: scratch(),
      env: {AWS_BATCH_JOB_ARRAY_INDEX: '1', AWS_BATCH_JOB_ARRAY_SIZE: '2'},
    })
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout.split('\n')[0])).toMatchObject({type: 'batch-start', rows: 1, shard: {index: 1, count: 2, scheduler: 'aws-batch', from: 'AWS_BATCH_JOB_ARRAY_INDEX/AWS_BATCH_JOB_ARRAY_SIZE'}})
    expect((await readdir(out)).sort()).toEqual(['1.png', 'manifest.shard-1-of-2.json', 'results.shard-1-of-2.csv'])
    expect((await readManifest(join(out, 'manifest.shard-1-of-2.json')))!.rows).toMatchObject([{index: 1, status: 'completed', output: '1.png'}])

    const merge = await runCli(['batch', 'merge', out], {cwd: scratch()})
    expect(merge.code).toBe(1)
    expect(merge.stderr).toContain('BATCH_MERGE')
    expect(merge.stderr).toContain('shard 0 of 2: missing: there is no manifest.shard-0-of-2.json; run it with --shard 0/2')
    expect(await readdir(out)).not.toContain('manifest.json')
  })

  it('refuses a bad shard (or a URL output outside a batch) before anything renders, naming the flag or variable, its value and the fix', async () => {
    const batch = await rows()
    const render = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(['render', CARD, '--batch', batch, '-o', join(scratch(), 'bad/{index}.mp4'), ...args], {cwd: scratch(), env})
    const outOfRange = await render(['--shard', '4/4'])
    expect(outOfRange.code).not.toBe(0)
    expect(outOfRange.stderr).toContain('--shard 4/4: shard index 4 is out of range for 4 shards')
    const noCount = await render([], {JOB_COMPLETION_INDEX: '1'})
    expect(noCount.code).not.toBe(0)
    expect(noCount.stderr).toContain('JOB_COMPLETION_INDEX=1 says this worker is shard 1 of a Kubernetes Indexed Job, but not how many shards there are: add --shard-count N')
    const notABatch = await runCli(['render', CARD, '--shard', '0/2'], {cwd: scratch()})
    expect(notABatch.stderr).toContain('--shard only applies to a batch: add --batch')
    const urlWithoutBatch = await runCli(['still', CARD, '-o', 's3://bucket/a.png'], {cwd: scratch()})
    expect(urlWithoutBatch.code).not.toBe(0)
    expect(urlWithoutBatch.stderr).toContain('--output s3://bucket/a.png: a URL output is for a batch (--batch rows.csv)')
    expect(await readdir(scratch())).not.toContain('bad')
  })
})
