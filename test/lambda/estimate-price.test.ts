import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {estimateCost} from '../../packages/lambda/src/lib/lambda/estimate-cost.js'
import {ASSUMED_PROFILE, estimatePrice} from '../../packages/lambda/src/lib/lambda/estimate-price.js'
import {runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES} from './support.js'
import {useScratchDir} from '../support/scratch-dir.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')

describe('a price before rendering: lambda render --estimate and estimatePrice', () => {
  const scratch = useScratchDir('engine-estimate-')

  it('plans the chunks as the render would and prices plan, chunks and assemble with the assumed profile; starts and uploads nothing', async () => {
    // No stack at all: the estimate needs none (no bucket, no endpoint, nothing listening).
    const result = await runCli(['lambda', 'render', PROJECT, '--estimate', '--json', '--target-chunk-frames', '30'], {env: {ENGINE_BUCKET: '', ENGINE_AWS_ENDPOINT: '', ENGINE_SFN_ARN: ''}})
    expect(result.code, result.stderr).toBe(0)
    const estimate = JSON.parse(result.stdout)
    expect(estimate).toMatchObject({frames: 90, width: 320, height: 180, memoryMb: 10240, requests: estimate.chunks + 2, stateTransitions: estimate.chunks + 4})
    expect(estimate.chunks).toBeGreaterThan(1)
    // The same arithmetic progress prices a finished render with.
    const seconds = [estimate.assumedSeconds.plan, ...estimate.assumedSeconds.chunks, estimate.assumedSeconds.assemble]
    expect(estimate.usd).toBe(estimateCost(seconds.map((value: number) => ({durationMs: value * 1000, memoryMb: 10240})), estimate.stateTransitions).usd)
    expect(estimate.assumedSeconds.chunks.reduce((sum: number, value: number) => sum + value - ASSUMED_PROFILE.coldStartSeconds, 0)).toBeCloseTo(90 * ASSUMED_PROFILE.secondsPerFrameAt1080p * ((320 * 180) / (1920 * 1080)), 2)

    const text = await runCli(['lambda', 'render', PROJECT, '--estimate'], {env: {ENGINE_BUCKET: ''}})
    expect(text.stdout).toMatch(/^Estimate: 90 frames at 320x180 in 1 chunk on 10240 MB: about 0\.\d{4} USD \([\d.]+ GB-s, 3 invocations, 5 state transitions; S3 not included\)$/m)
  })

  it('costs more with more pixels and on a smaller function (fewer vCPUs), and 60 s of 1080p30 at the defaults is the documented ~0.03 USD', async () => {
    const small = await estimatePrice({projectDir: PROJECT})
    const large = await estimatePrice({projectDir: PROJECT, config: {width: 1920, height: 1080}})
    const capped = await estimatePrice({projectDir: PROJECT, config: {width: 1920, height: 1080}, memoryMb: 3008})
    expect(large.usd).toBeGreaterThan(small.usd)
    const capture = (estimate: typeof large) => estimate.assumedSeconds.chunks[0] - ASSUMED_PROFILE.coldStartSeconds
    // 3,008 MB has 3,008 / 10,240 of the 6 vCPUs: capture takes 10,240 / 3,008 as long.
    expect(capture(capped) / capture(large)).toBeCloseTo(10240 / 3008, 2)

    const minute = join(scratch(), 'minute')
    await mkdir(minute)
    await writeFile(join(minute, 'index.html'), '<div data-composition-id="m" data-width="1920" data-height="1080" data-duration="60"></div>')
    const oneMinute = await estimatePrice({projectDir: minute})
    // Chunks as the plan step makes them: one 4 s segment per vCPU of the 6-vCPU function, 720 frames each.
    expect(oneMinute).toMatchObject({frames: 1800, chunks: 3})
    expect(oneMinute.usd).toBeGreaterThan(0.025)
    expect(oneMinute.usd).toBeLessThan(0.035)

    // More than 40 chunks at once run as the Distributed Map's child workflows: each child's start is
    // a transition too, as the 42-chunk render's cost counts them (lambda-many-chunks.test.ts: 88).
    const wide = await estimatePrice({projectDir: PROJECT, config: {fps: 14, keyframeInterval: 0.1, chunkSize: 1, maxParallelChunks: 42}})
    expect(wide).toMatchObject({chunks: 42, stateTransitions: 4 + 42 * 2})
  })

  it('a composition whose length is known only when it renders, or a bad flag, is refused naming why', async () => {
    const open = join(scratch(), 'open')
    await mkdir(open)
    await writeFile(join(open, 'index.html'), '<div data-composition-id="o" data-width="320" data-height="180"></div>')
    const unknown = await runCli(['lambda', 'render', open, '--estimate'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/estimate: the composition has no data-duration, so its length \(and price\) is known only when it renders/)
    const bad = await runCli(['lambda', 'render', PROJECT, '--estimate', '--fps', 'fast'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/fps/)
  })
})
