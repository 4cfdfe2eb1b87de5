import {readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {BaseSequencer, type TestSpecification} from 'vitest/node'

/** Seconds each test file took in a full run, by path from the repository root (see scripts/test-file-seconds.mjs). */
const FILE_SECONDS_PATH = join(import.meta.dirname, 'file-seconds.json')

/**
 * Starts the longest files first, so the run does not end with one long file alone on one core
 * while the other has nothing left. vitest orders by the durations in its local cache, which a
 * fresh clone (CI) lacks: it then orders by file size, and a short file that starts a minute of
 * renders would run last. The checked-in figures stand in for that cache; a file they do not know
 * (a new one) starts first, as vitest starts files it has no result for.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(FILE_SECONDS_PATH, 'utf8')) as Record<string, number>
    const root = this.ctx.config.root
    const weight = (spec: TestSpecification) => seconds[relative(root, spec.moduleId)] ?? Number.MAX_SAFE_INTEGER
    return [...files].sort((a, b) => weight(b) - weight(a))
  }
}
