import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {handler} from '../../packages/lambda/src/lib/lambda/handler.js'
import type {ChunkManifest, StoredPlan} from '../../packages/lambda/src/lib/lambda/render-records.js'
import {chunkManifestKey, planKey} from '../../packages/lambda/src/lib/lambda/storage-keys.js'
import {overrideEnv} from '../support/override-env.js'
import {runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'

/** The handler in this process, against the stand-in cloud: each step of one render by hand. */
describe('the finished plan travels with its hash: chunks and assemble refuse what does not match', {timeout: 200_000}, () => {
  let stack: RunningStack
  let restoreEnv: (() => void) | undefined

  beforeAll(async () => {
    stack = await sharedStack()
    restoreEnv = overrideEnv(stack.env)
  }, 120_000)
  afterAll(async () => {
    restoreEnv?.()
    await stack?.stop()
  })

  it('a chunk refuses a stored plan that was changed after planning; assemble refuses a chunk of another plan', async () => {
    const site = await runCli(['lambda', 'sites', 'create', join(LAMBDA_FIXTURES, 'project')], {env: stack.env})
    expect(site.code, site.stderr).toBe(0)
    const siteId = /^Site ID: (\w+)$/m.exec(site.stdout)![1]
    const bucketName = stack.env.ENGINE_BUCKET
    const renderId = 'plan-hash-test'
    const planned = (await handler({
      action: 'plan',
      render: {renderId, bucketName, siteId, entry: 'index.html', outputKey: 'out/plan-hash.mp4', config: {frames: '0-14', chunkSize: 15}},
    })) as {chunks: {index: number; start: number; end: number}[]}
    expect(planned.chunks).toEqual([{index: 0, start: 0, end: 15}])
    const stored = (await stack.bucket.getJson<StoredPlan>(planKey(renderId)))!
    expect(stored.planHash).toMatch(/^[0-9a-f]{64}$/)

    const chunk = {action: 'renderChunk', renderId, bucketName, chunk: planned.chunks[0]}
    await stack.bucket.putJson(planKey(renderId), {...stored, plan: {...stored.plan, html: stored.plan.html.replace('</body>', '<p>changed</p></body>')}})
    await expect(handler(chunk)).rejects.toMatchObject({message: expect.stringContaining('the stored plan does not match its hash')})
    expect(await stack.bucket.getJson(chunkManifestKey(renderId, 0))).toBeUndefined()

    await stack.bucket.putJson(planKey(renderId), stored)
    await expect(handler(chunk)).resolves.toEqual({index: 0, frames: 15})
    const manifest = (await stack.bucket.getJson<ChunkManifest>(chunkManifestKey(renderId, 0)))!
    expect(manifest.planHash).toBe(stored.planHash)

    await stack.bucket.putJson(chunkManifestKey(renderId, 0), {...manifest, planHash: '0'.repeat(64)})
    await expect(handler({action: 'assemble', renderId, bucketName})).rejects.toMatchObject({message: expect.stringContaining(`chunk 0 rendered plan ${'0'.repeat(64)}, not the render's`)})
    await stack.bucket.putJson(chunkManifestKey(renderId, 0), manifest)
    await expect(handler({action: 'assemble', renderId, bucketName})).resolves.toMatchObject({outputKey: 'out/plan-hash.mp4', totalFrames: 15})
  })
})
