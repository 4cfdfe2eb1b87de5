import {copyFile, mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {load} from 'js-yaml'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {readManifest, type BatchManifest} from '../../src/lib/batch/index.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * docs/guides/batch/shards.md (how to split one batch over many machines): its Kubernetes Indexed Job manifest is parsed
 * and checked for what the engine relies on, its Cloud Run Jobs command is read as gcloud would,
 * and both command lines run as the schedulers run them (N processes with the scheduler's
 * variables set) over a small batch, merged, and compared with the same batch run whole.
 */
const section = readFileSync(join(REPO_ROOT, 'docs/guides/batch/shards.md'), 'utf8')
const block = (language: string) => [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)\\n```', 'g'))].map((match) => match[1])

const indexedJobSchema = z.object({
  apiVersion: z.literal('batch/v1'),
  kind: z.literal('Job'),
  metadata: z.object({name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)}),
  spec: z.object({
    completionMode: z.literal('Indexed'),
    completions: z.number().int().positive(),
    parallelism: z.number().int().positive(),
    template: z.object({
      spec: z.object({
        // A Job's pods may not use Always.
        restartPolicy: z.enum(['OnFailure', 'Never']),
        containers: z
          .array(
            z.object({
              name: z.string(),
              image: z.string(),
              command: z.array(z.string()),
              volumeMounts: z.array(z.object({name: z.string(), mountPath: z.string()})),
            }),
          )
          .length(1),
        volumes: z.array(z.object({name: z.string(), persistentVolumeClaim: z.object({claimName: z.string()})})),
      }),
    }),
  }),
})

/** gcloud's flags from a shell command line without quotes: `--name value` pairs. */
function gcloudFlags(command: string): Map<string, string> {
  const words = command.replace(/\\\n/g, ' ').trim().split(/\s+/)
  const flags = new Map<string, string>()
  for (let at = 0; at < words.length; at++) if (words[at].startsWith('--')) flags.set(words[at], words[at + 1]?.startsWith('--') ? '' : words[++at])
  return flags
}

const valueAfter = (args: string[], flag: string) => args[args.indexOf(flag) + 1]

function timeless(manifest: BatchManifest) {
  const {createdAt: _c, updatedAt: _u, finishedAt: _f, ...head} = manifest
  return {...head, rows: manifest.rows.map(({startedAt: _s, finishedAt: _e, renderMs: _r, ...row}) => row)}
}

describe('docs/guides/batch/shards.md', PROCESSES, () => {
  const scratch = useScratchDir('engine-scale-out-')
  const [manifestText] = block('yaml')
  const job = indexedJobSchema.parse(load(manifestText))
  const [container] = job.spec.template.spec.containers
  const [jobsCreate] = block('sh')
  const cloudRun = gcloudFlags(jobsCreate.split('\n').filter((line) => !line.startsWith('gcloud run jobs execute')).join('\n'))
  const cloudRunArgs = cloudRun.get('--args')!.split(',')

  it('the Indexed Job gives every worker the count the engine needs, and the output on the shared volume', () => {
    const [engine, ...args] = container.command
    expect(engine).toBe('engine')
    expect(args.slice(0, 2)).toEqual(['render', '/project/index.html'])
    expect(valueAfter(args, '--shard-count')).toBe(String(job.spec.completions))
    const mount = container.volumeMounts[0]
    expect(job.spec.template.spec.volumes.map((volume) => volume.name)).toContain(mount.name)
    expect(valueAfter(args, '-o').startsWith(mount.mountPath + '/')).toBe(true)
    expect(args).toContain('--resume')
  })

  it('the Cloud Run Job runs the same command, its count from CLOUD_RUN_TASK_COUNT', () => {
    expect(cloudRun.get('--command')).toBe('engine')
    expect(Number(cloudRun.get('--tasks'))).toBe(job.spec.completions)
    const withoutCount = container.command.slice(1).filter((_, at, all) => all[at] !== '--shard-count' && all[at - 1] !== '--shard-count')
    expect(cloudRunArgs).toEqual(withoutCount)
    expect(cloudRun.get('--add-volume-mount')).toContain(`mount-path=${container.volumeMounts[0].mountPath}`)
  })

  it('its workers, run as the schedulers run them and merged, give the files and manifest of the batch run whole', async () => {
    const dir = scratch()
    const project = join(dir, 'project')
    const shared = join(dir, 'shared')
    await mkdir(project, {recursive: true})
    await copyFile(join(REPO_ROOT, 'test/batch/fixtures/card.html'), join(project, 'index.html'))
    const rows = ['title,background', ...['Ada', 'Bo', 'Cy', 'Di', 'Ed', 'Flo', 'Gus'].map((name, at) => `${name},#${(at * 30 + 16).toString(16).repeat(3)}`)]
    await writeFile(join(project, 'rows.csv'), rows.join('\n') + '\n')
    // The container's paths, on this machine; small renders (the scheduler's own flags are untouched).
    const local = (args: string[]) => [...args.map((arg) => arg.replace('/project/', project + '/').replace('/shared/', shared + '/')), '--scale', '0.5', '--json']
    const kubernetes = local(container.command.slice(1))
    const cloudRunLine = local(cloudRunArgs)
    const renders = join(shared, 'renders')

    const whole = await runCli(cloudRunLine.filter((arg) => arg !== '--resume'), {cwd: dir})
    expect(whole.code, whole.stderr).toBe(0)
    await rename(renders, join(dir, 'whole'))

    // Shards 0 and 1 as pods of the Indexed Job, 2 and 3 as Cloud Run tasks: one batch, since the command lines are the same.
    const count = job.spec.completions
    const workers = await Promise.all(
      Array.from({length: count}, (_, index) =>
        index < 2
          ? runCli(kubernetes, {cwd: dir, env: {JOB_COMPLETION_INDEX: String(index)}})
          : runCli(cloudRunLine, {cwd: dir, env: {CLOUD_RUN_TASK_INDEX: String(index), CLOUD_RUN_TASK_COUNT: String(count)}}),
      ),
    )
    for (const [index, worker] of workers.entries()) {
      expect(worker.code, worker.stderr).toBe(0)
      const start = JSON.parse(worker.stdout.split('\n').find((line) => line.includes('"batch-start"'))!)
      expect(start.shard).toEqual(
        index < 2
          ? {index, count, scheduler: 'kubernetes', from: 'JOB_COMPLETION_INDEX + --shard-count'}
          : {index, count, scheduler: 'cloud-run', from: 'CLOUD_RUN_TASK_INDEX/CLOUD_RUN_TASK_COUNT'},
      )
      expect(start.rows).toBe(index < 3 ? 2 : 1)
    }

    const merge = await runCli(['batch', 'merge', renders], {cwd: dir})
    expect(merge.code, merge.stderr).toBe(0)
    expect(merge.stdout).toContain(`merged ${count} shards: 7 completed, 0 failed, 0 skipped`)
    for (let row = 0; row < 7; row++) {
      expect((await readFile(join(renders, `${row}.mp4`))).equals(await readFile(join(dir, 'whole', `${row}.mp4`))), `row ${row}`).toBe(true)
    }
    const merged = (await readManifest(join(renders, 'manifest.json')))!
    const unsharded = (await readManifest(join(dir, 'whole', 'manifest.json')))!
    expect(timeless(merged)).toEqual(timeless(unsharded))
  })
})

