import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {HeadBucketCommand} from '@aws-sdk/client-s3'
import {describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'

describe('engine lambda local --json', {timeout: 120_000}, () => {
  const scratch = useScratchDir('engine-local-json-')

  it('prints what to export as one JSON object, answers requests signed with that token, and exits 130 on Ctrl-C', async () => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), 'lambda', 'local', '--port', '0', '--json', '--directory', scratch()], {
      cwd: REPO_ROOT,
      env: {...process.env, NODE_ENV: undefined, ENGINE_LOCAL_TOKEN: undefined},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    try {
      let out = ''
      await new Promise<void>((resolve, reject) => {
        child.on('close', () => reject(new Error(`lambda local ended: ${out}`)))
        child.stdout.on('data', (chunk) => {
          out += chunk
          if (out.includes('\n')) resolve()
        })
      })
      const printed = JSON.parse(out.split('\n')[0]) as Record<string, string>
      expect(printed).toMatchObject({
        ENGINE_LOCAL_TOKEN: expect.stringMatching(/^\S{16,}$/),
        ENGINE_AWS_ENDPOINT: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        ENGINE_BUCKET: expect.any(String),
        ENGINE_SFN_ARN: expect.stringMatching(/^arn:aws:states:/),
        directory: scratch(),
      })
      const s3 = createS3Client({endpoint: printed.ENGINE_AWS_ENDPOINT, localToken: printed.ENGINE_LOCAL_TOKEN})
      expect((await s3.send(new HeadBucketCommand({Bucket: printed.ENGINE_BUCKET})))['$metadata'].httpStatusCode).toBe(200)
      // Unsigned, it answers nothing.
      expect((await fetch(`${printed.ENGINE_AWS_ENDPOINT}/${printed.ENGINE_BUCKET}`, {signal: AbortSignal.timeout(10_000)})).status).toBeGreaterThanOrEqual(400)
      child.kill('SIGINT')
      expect(await exited).toBe(130)
    } finally {
      clearTimeout(killer)
      child.kill('SIGKILL')
    }
  })
})
