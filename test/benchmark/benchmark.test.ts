import {mkdtemp, readFile, readdir, rm, writeFile} from 'node:fs/promises'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {formatBenchmark, recommend, workerCountsToMeasure, type BenchmarkResult} from '../../src/lib/benchmark/index.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

describe('engine benchmark', PROCESSES, () => {
  const scratch: string[] = []
  const directory = async () => {
    const path = await mkdtemp(join(tmpdir(), 'engine-benchmark-test-'))
    scratch.push(path)
    return path
  }
  afterEach(async () => {
    await Promise.all(scratch.splice(0).map((path) => rm(path, {recursive: true, force: true})))
  })

  it('--json --quick --save: frames/s per configuration, a recommendation, merged into engine.config.json', async () => {
    const cwd = await directory()
    await writeFile(join(cwd, 'engine.config.json'), JSON.stringify({fps: 24, quality: 'draft'}, null, 4) + '\n')
    const {code, stdout, stderr} = await runCli(['benchmark', '--json', '--quick', '--save'], {cwd})
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout) as BenchmarkResult & {saved: string}
    const workers = workerCountsToMeasure(availableParallelism())
    expect(result.configurations.map((configuration) => configuration.workers)).toEqual(workers)
    for (const configuration of result.configurations) {
      expect(configuration.captureMode).toBe('begin-frame')
      expect(configuration.framesPerSecond).toBeGreaterThan(0)
      expect(configuration.seconds).toBeGreaterThan(0)
      expect(configuration.framesPerSecond).toBeCloseTo(result.frames / configuration.seconds, 0)
    }
    // The config file's render options are the ones measured: 1 s at 24 fps.
    expect(result).toMatchObject({composition: 'built-in reference', width: 640, height: 360, fps: '24', quality: 'draft', frames: 24})
    expect(workers).toContain(result.recommendation.workers)
    expect(result.saved).toBe(join(cwd, 'engine.config.json'))
    const saved = await readFile(join(cwd, 'engine.config.json'), 'utf8')
    expect(JSON.parse(saved)).toEqual({fps: 24, quality: 'draft', workers: result.recommendation.workers})
    expect(saved).toContain('\n    "fps"')
  })

  it('cuts a longer composition to --duration, next to the original, and removes the copy', async () => {
    const fixtures = join(REPO_ROOT, 'test/fixtures/preview')
    const before = await readdir(fixtures)
    const {code, stdout, stderr} = await runCli(['benchmark', 'test/fixtures/preview/all-types.html', '--json', '--quick', '--duration', '0.5'])
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout) as BenchmarkResult
    expect(result).toMatchObject({composition: 'test/fixtures/preview/all-types.html', width: 320, height: 180, frames: 15})
    expect(await readdir(fixtures)).toEqual(before)
  })

  it('--save refuses a JavaScript config before measuring anything', async () => {
    const cwd = await directory()
    await writeFile(join(cwd, 'engine.config.mjs'), 'export default {fps: 24}\n')
    const {code, stderr} = await runCli(['benchmark', '--quick', '--save'], {cwd})
    expect(code).toBe(1)
    expect(stderr).toContain('error [INVALID_CONFIG]')
    expect(stderr).toContain('engine.config.mjs')
    expect(stderr).not.toContain('rendering with')
  })

  it('recommends the fastest configuration, and fewer workers when within 5%', () => {
    const measured = (workers: number, framesPerSecond: number) => ({workers, captureMode: 'begin-frame' as const, framesPerSecond, seconds: 1})
    expect(recommend([measured(1, 10), measured(2, 18), measured(3, 17)]).workers).toBe(2)
    expect(recommend([measured(1, 10), measured(2, 20.5), measured(3, 21)]).workers).toBe(2)
    expect(workerCountsToMeasure(1)).toEqual([1])
    expect(workerCountsToMeasure(2)).toEqual([1, 2])
    expect(workerCountsToMeasure(16)).toEqual([1, 2, 3, 4])
  })

  it('prints a table of frames/s per configuration', () => {
    const text = formatBenchmark({
      composition: 'built-in reference',
      width: 1920,
      height: 1080,
      fps: '30',
      format: 'mp4',
      quality: 'standard',
      frames: 60,
      cores: 2,
      autoWorkers: 1,
      configurations: [
        {workers: 1, captureMode: 'begin-frame', framesPerSecond: 12.3, seconds: 4.88},
        {workers: 2, captureMode: 'begin-frame', framesPerSecond: 19.5, seconds: 3.08},
      ],
      recommendation: {workers: 2, captureMode: 'begin-frame', framesPerSecond: 19.5},
    })
    expect(text).toContain('workers  capture      frames/s  seconds')
    expect(text).toContain('      2  begin-frame      19.5     3.08')
    expect(text).toContain('recommendation: --workers 2 (19.5 frames/s, begin-frame capture; --workers auto would use 1)')
  })
})
