import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {applyV8Flags} from '../../src/cli/v8-flags.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

describe('ENGINE_V8_FLAGS', PROCESSES, () => {
  it('refuses what is no V8 flag before any command runs, naming the variable and the value', async () => {
    for (const value of ['no-opt', '--no-opt; touch pwned', '--no-opt --', '--expose-gc=a=b']) {
      const result = await runCli(['lint', join(REPO_ROOT, 'examples', 'hello', 'index.html')], {env: {ENGINE_V8_FLAGS: value}})
      expect(result.code, value).toBe(1)
      expect(result.stdout, value).toBe('')
      expect(result.stderr, value).toMatch(/^error \[INVALID_CONFIG\]: ENGINE_V8_FLAGS: ".+" is no V8 flag; give flags such as --no-opt, separated by spaces, or unset it\n$/)
    }
    const fine = await runCli(['lint', join(REPO_ROOT, 'examples', 'hello', 'index.html')], {env: {ENGINE_V8_FLAGS: ' --no-opt  --max-lazy '}})
    expect(fine.code, fine.stderr).toBe(0)
  })

  it('hands every flag to V8 (natives syntax compiles only once it is on)', () => {
    const natives = () => new Function('return %IsSmi(1)')() as boolean
    expect(natives).toThrow(SyntaxError)
    applyV8Flags({ENGINE_V8_FLAGS: '--no-opt --allow-natives-syntax'})
    expect(natives()).toBe(true)
  })
})
