import {spawn} from 'node:child_process'
import {createHash} from 'node:crypto'
import {watch} from 'node:fs'
import {cp, mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readManifest} from '../../src/lib/batch/index.js'
import {listEntries} from '../../src/lib/render-cache/index.js'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {startServer, type RunningServer} from '../../src/lib/server/start-server.js'
import type {StreamEvent} from '../../src/lib/server/stream-events.js'
import {serverFetch, type ServerConnection} from '../../src/lib/server-client/server-api.js'
import {openStream} from '../server/support/test-server.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** Every entry of the cache is whole: its files have the size and sha256 its record names. */
async function assertEntriesWhole(directory: string): Promise<number> {
  const entries = await listEntries(directory)
  for (const {key, entry} of entries) {
    for (const file of entry.files) expect(sha256(await readFile(join(directory, key, file.name))), `${key}/${file.name}`).toBe(file.sha256)
  }
  return entries.length
}

describe('the render cache through the doors', PROCESSES, () => {
  const scratch = useScratchDir('engine-render-cache-cli-')
  let project: string

  beforeAll(async () => {
    project = join(scratch(), 'project')
    await cp(FIXTURES, project, {recursive: true})
  })

  describe('engine serve', () => {
    let server: RunningServer
    let connection: ServerConnection
    const before = process.env.ENGINE_RENDER_CACHE

    beforeAll(async () => {
      process.env.ENGINE_RENDER_CACHE = join(scratch(), 'server-cache')
      server = await startServer(await resolveServerSettings({port: 0, root: project, maxConcurrentRenders: 1}, {}))
      connection = {url: server.url}
    })
    afterAll(async () => {
      await server?.close()
      process.env.ENGINE_RENDER_CACHE = before
    })

    it('answers a second identical request from the cache (complete event cached: true) unless the body says cache: false', async () => {
      const body = {composition: 'badge.html', format: 'mp4', fps: 10, quality: 'draft', workers: 1, scale: 0.5, variables: {title: 'Served'}} as const
      const outputs: Buffer[] = []
      const finals: StreamEvent[] = []
      for (const request of [body, body, {...body, cache: false}]) {
        const final = await openStream(connection, request).done
        expect(final).toMatchObject({type: 'complete', totalFrames: 5})
        finals.push(final)
        outputs.push(Buffer.from(await (await serverFetch(connection, (final as Extract<StreamEvent, {type: 'complete'}>).outputUrl)).arrayBuffer()))
      }
      expect(finals.map((final) => (final as {cached: boolean}).cached)).toEqual([false, true, false])
      expect(sha256(outputs[1])).toBe(sha256(outputs[0]))
      expect(await assertEntriesWhole(join(scratch(), 'server-cache'))).toBe(1)
    })
  })

  it('engine still reuses an identical still, --no-cache does not, and engine cache ls|clean show and empty the render cache', async () => {
    const cacheDir = join(scratch(), 'still-cache')
    const env = {ENGINE_RENDER_CACHE: cacheDir}
    const still = (output: string, ...flags: string[]) =>
      runCli(['still', join(project, 'badge.html'), '--frame', '2', '--scale', '0.5', '--variables', '{"title":"CLI"}', '-o', join(scratch(), output), '--json', ...flags], {env})
    const runs = [await still('a.png'), await still('b.png'), await still('c.png', '--no-cache')]
    const done = runs.map((run) => {
      expect(run.code, run.stderr).toBe(0)
      return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {type: string; cached?: boolean}
    })
    expect(done.map((event) => event.cached === true)).toEqual([false, true, false])
    expect(sha256(await readFile(join(scratch(), 'b.png')))).toBe(sha256(await readFile(join(scratch(), 'a.png'))))

    const listed = await runCli(['cache', 'ls', '--json'], {env})
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toMatchObject({renders: {directory: cacheDir, entries: [{kind: 'still', composition: 'badge.html', files: ['output']}]}})
    const cleaned = await runCli(['cache', 'clean', '--only', 'renders', '--json'], {env})
    expect(JSON.parse(cleaned.stdout)).toMatchObject({renders: {removed: 1}, downloads: {removed: 0}})
    expect(await listEntries(cacheDir)).toEqual([])
  })

  it('a batch killed with SIGKILL during a cache store leaves no entry that passes as whole, and --resume finishes it from the cache', async () => {
    const dir = join(scratch(), 'killed')
    const cacheDir = join(dir, 'cache')
    await mkdir(cacheDir, {recursive: true})
    const titles = ['A', 'B', 'C', 'D', 'E', 'F']
    // Every title twice: the second half of the batch is the first half again.
    await writeFile(join(dir, 'rows.csv'), ['title', ...titles, ...titles].join('\n') + '\n')
    const args = (resume: boolean) => [join(REPO_ROOT, 'bin/run.js'), 'still', join(project, 'badge.html'), '--batch', 'rows.csv', '-o', 'out/{index}.png', '--scale', '0.5', '--json', ...(resume ? ['--resume'] : [])]

    /** Runs the batch and kills it the moment a store starts (its staging directory appears). */
    const runKilledInStore = async (resume: boolean) => {
      const child = spawn(process.execPath, args(resume), {cwd: dir, stdio: 'ignore', env: {...process.env, ENGINE_RENDER_CACHE: cacheDir}})
      const watcher = watch(cacheDir, (_event, name) => {
        if (name?.startsWith('.staging-')) child.kill('SIGKILL')
      })
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, exitSignal) => resolve(exitSignal)))
      clearTimeout(timer)
      watcher.close()
      return signal
    }

    let killedMidStore = false
    for (let attempt = 0; attempt < 5 && !killedMidStore; attempt++) {
      expect(await runKilledInStore(attempt > 0)).toBe('SIGKILL')
      // The store's staging directory is still there: the kill landed before its rename.
      killedMidStore = (await readdir(cacheDir)).some((name) => name.startsWith('.staging-'))
      await assertEntriesWhole(cacheDir)
    }
    expect(killedMidStore).toBe(true)

    const resumed = await runCli(args(true).slice(1), {cwd: dir, env: {ENGINE_RENDER_CACHE: cacheDir}})
    expect(resumed.code, resumed.stderr).toBe(0)
    const manifest = (await readManifest(join(dir, 'out/manifest.json')))!
    expect(manifest.rows.every((row) => row.status === 'completed' || row.status === 'cached')).toBe(true)
    expect(manifest.counts.cached).toBeGreaterThan(0)
    const shas = await Promise.all(manifest.rows.map(async (row) => sha256(await readFile(join(dir, 'out', row.output)))))
    expect(shas.slice(6)).toEqual(shas.slice(0, 6))
    expect(new Set(shas).size).toBe(6)
    expect(await assertEntriesWhole(cacheDir)).toBe(6)
  })
})
