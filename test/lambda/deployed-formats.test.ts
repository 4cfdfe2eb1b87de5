import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {StackRecord} from '../../packages/lambda/src/lib/lambda/stack-record.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'

/**
 * A plugin installed here after the function was deployed: its format is refused before the site
 * is uploaded, rather than failing in the function's plan step.
 */
describe('lambda render with a format the deployed function lacks', PROCESSES, () => {
  let stack: RunningStack
  let scratch: string
  let pluginEnv: Record<string, string>

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-deployed-formats-'))
    // The stack runs without the plugin; the CLI that renders has it linked.
    stack = await sharedStack()
    pluginEnv = {ENGINE_DATA_DIR: join(scratch, 'data'), ENGINE_CONFIG_DIR: join(scratch, 'config')}
    const linked = await runCli(['plugins', 'link', join(REPO_ROOT, 'examples', 'format-plugin'), '--no-install'], {env: pluginEnv})
    expect(linked.code, linked.stderr).toBe(0)
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('the stack records what it renders, and --format mkv fails naming the fix, uploading nothing', async () => {
    const record = (await stack.bucket.getJson<StackRecord>('engine-stack.json'))!
    expect(record.formats).toEqual(expect.arrayContaining(['mp4', 'mov', 'webm', 'gif', 'png-sequence']))
    expect(record.formats).not.toContain('mkv')

    const result = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'project'), '--format', 'mkv'], {env: {...stack.env, ...pluginEnv}})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[INVALID_FLAG\]: --format mkv: the deployed function renders mp4, .*run `engine lambda deploy` again/)
    expect(await stack.bucket.listKeys('sites/')).toEqual([])
    expect(await stack.bucket.listKeys('renders/')).toEqual([])
  })
})
