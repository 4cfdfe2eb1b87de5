import {createHash} from 'node:crypto'
import {readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {expect} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir as scratchDir} from '../support/scratch-dir.js'

export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'determinism')

/** Call at describe level: a scratch directory made before the tests and removed after them. */
export const useScratchDir = (): (() => string) => scratchDir('engine-determinism-')

/** `engine render <fixture> --profile deterministic ...` as a user runs it; fails the test on a non-zero exit. */
export async function renderUnderProfile(fixture: string, args: string[], env?: NodeJS.ProcessEnv): Promise<void> {
  const result = await runCli(['render', join(FIXTURES, fixture), '--profile', 'deterministic', '--quiet', ...args], {env})
  expect(result.code, result.stderr).toBe(0)
}

/** Every frame file of a png-sequence directory, by name. */
export async function frameFiles(directory: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.png')).sort()
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(directory, name))] as const)))
}

export function expectSameFrames(actual: Map<string, Buffer>, expected: Map<string, Buffer>): void {
  expect([...actual.keys()]).toEqual([...expected.keys()])
  for (const [name, bytes] of expected) expect(actual.get(name)!.equals(bytes), name).toBe(true)
}

/** sha256 of a file's bytes, hex. */
export async function sha256File(file: string): Promise<string> {
  return createHash('sha256').update(await readFile(file)).digest('hex')
}
