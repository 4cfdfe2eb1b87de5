import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach} from 'vitest'

/**
 * A temporary folder, made before and removed after the file's tests (`per: 'file'`) or each test
 * (`per: 'test'`); call the returned function inside a test or hook for its path.
 */
export function useScratchDir(prefix: string, per: 'file' | 'test' = 'file'): () => string {
  let dir: string | undefined
  const [before, after] = per === 'file' ? [beforeAll, afterAll] : [beforeEach, afterEach]
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix))
  })
  after(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })
  return () => dir!
}
