import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {RenderResultRecord} from '../../packages/lambda/src/lib/lambda/render-records.js'
import {near, pixelAt} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')

/** The project's band is red for the first second, green for the second, blue for the third. */
describe('lambda render --poster', PROCESSES, () => {
  let stack: RunningStack
  let scratch: string
  const lambda = (args: string[]) => runCli(['lambda', ...args], {env: stack.env})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-poster-'))])
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('stores the frame on screen at that time beside the output, from the chunk that captured it', async () => {
    const result = await lambda(['render', PROJECT, '--poster', '1.5', '--poster-format', 'png', '--chunk-size', '30', '--keyframe-interval', '1', '--output-key', 'out/p.mp4', '--wait'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain(`Poster: s3://${stack.env.ENGINE_BUCKET}/out/p.poster.png`)
    const renderId = /^Render (\S+): SUCCEEDED/m.exec(result.stdout)![1]
    expect((await stack.bucket.getJson<RenderResultRecord>(`renders/${renderId}/result.json`))?.posterKey).toBe('out/p.poster.png')
    const poster = join(scratch, 'p.poster.png')
    await stack.bucket.downloadFile('out/p.poster.png', poster)
    expect(near(await pixelAt(poster, 0, 160, 70), {r: 0, g: 255, b: 0})).toBe(true)
    expect(await stack.bucket.listKeys(`scratch/${renderId}/`)).toEqual([])
  })

  it('refuses a time past the end in the plan step, naming the flag', async () => {
    const result = await lambda(['render', PROJECT, '--poster', '9', '--output-key', 'out/late.mp4', '--wait'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/INVALID_FLAG.*--poster 9: the render ends at 3\.000 s/)
    expect(await stack.bucket.exists('out/late.mp4')).toBe(false)
  })
})
