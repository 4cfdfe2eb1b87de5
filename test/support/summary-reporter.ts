import {writeSync} from 'node:fs'
import {relative} from 'node:path'
import type {Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, TestSuite, Vitest} from 'vitest/node'
import {CAPABILITY_NOTE, REQUIRE_CAPABILITIES_ENV} from './capabilities.js'

type Entity = TestModule | TestSuite

interface Tally {
  passed: number
  failed: number
  skipped: number
  /** Lines printed above the closing line: why the run failed when no test did, and each skip with its reason. */
  notes: string[]
}

/**
 * Ends the run with one plain `tests: N passed, N failed, N skipped` line, a closing line any CI
 * log reader understands regardless of the test runner. It must never read "0 failed" when vitest
 * fails: a test that did not run because its `beforeAll` threw counts as failed, not skipped; a
 * failed `afterAll`, a file that failed to load and an unhandled error each count as one failure;
 * a run that failed outside any test (a global setup that threw) or was interrupted counts one
 * more, with a line above saying why. Every skipped test is listed with its reason; with
 * ENGINE_TEST_REQUIRE_CAPABILITIES=1 (CI) a test skipped for a missing capability is a failure.
 */
export default class SummaryReporter implements Reporter {
  private root = process.cwd()
  private bail = 0
  private ended = false
  /** Results as they come, for a run that is cut short before it reports its end. */
  private readonly seen = {passed: 0, failed: 0, skipped: 0}

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root
    this.bail = vitest.config.bail ?? 0
    // An interrupted run (Ctrl-C, SIGTERM) exits without reporting its end: the line is written on the way out.
    process.once('exit', (code) => {
      if (this.ended) return
      const {passed, failed, skipped} = this.seen
      writeSync(1, `\nthe run was interrupted before it finished (exit status ${code}); tests it had not reached are not counted\ntests: ${passed} passed, ${failed + 1} failed, ${skipped} skipped\n`)
    })
  }

  onTestCaseResult(testCase: TestCase): void {
    const state = testCase.result().state
    if (state === 'passed' || state === 'failed' || state === 'skipped') this.seen[state]++
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = [], reason: TestRunEndReason = 'passed'): void {
    this.ended = true
    const tally = this.count(testModules, unhandledErrors.length)
    if (reason === 'interrupted') {
      tally.failed++
      tally.notes.push('the run was interrupted before it finished; tests it had not reached are not counted')
    } else if (reason === 'failed' && tally.failed === 0) {
      tally.failed++
      tally.notes.push('vitest failed outside any test (a global setup, the configuration or collecting the files; its error is above)')
    }
    if (this.bail > 0 && tally.failed >= this.bail) {
      tally.notes.push(`the run stopped at its first ${this.bail === 1 ? 'failure' : `${this.bail} failures`} (--bail ${this.bail}); tests it had not reached are not counted`)
    }
    const notes = tally.notes.length > 0 ? `\n${tally.notes.join('\n')}` : ''
    process.stdout.write(`${notes}\ntests: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped\n`)
  }

  private count(testModules: ReadonlyArray<TestModule>, unhandled: number): Tally {
    const tally: Tally = {passed: 0, failed: unhandled, skipped: 0, notes: []}
    const requireCapabilities = process.env[REQUIRE_CAPABILITIES_ENV] === '1'
    for (const testModule of testModules) {
      const brokenEntities = [testModule, ...testModule.children.allSuites()].filter((entity) => entity.errors().length > 0)
      const blamed = new Set<Entity>()
      for (const test of testModule.children.allTests()) {
        const result = test.result()
        const brokenAncestor = result.state === 'skipped' || result.state === 'pending' ? firstBrokenAncestor(test) : undefined
        if (result.state === 'passed') tally.passed++
        else if (result.state === 'failed') tally.failed++
        else if (brokenAncestor && test.options.mode !== 'skip' && test.options.mode !== 'todo') {
          tally.failed++
          blamed.add(brokenAncestor)
        } else {
          const note = result.state === 'skipped' ? result.note : undefined
          const name = `${relative(this.root, testModule.moduleId)} > ${test.fullName}`
          if (requireCapabilities && note?.startsWith(CAPABILITY_NOTE)) {
            tally.failed++
            tally.notes.push(`failed (${REQUIRE_CAPABILITIES_ENV}=1): ${name}: ${note}`)
          } else {
            tally.skipped++
            if (test.options.mode !== 'todo') tally.notes.push(`skipped: ${name}${note ? `: ${note}` : ''}`)
          }
        }
      }
      // A hook or load error that left no test failed (afterAll, an import that threw) still fails the run.
      tally.failed += brokenEntities.filter((entity) => !blamed.has(entity)).length
    }
    return tally
  }
}

function firstBrokenAncestor(test: TestCase): Entity | undefined {
  for (let entity: Entity = test.parent; ; entity = entity.parent) {
    if (entity.errors().length > 0) return entity
    if (entity.type === 'module') return undefined
  }
}
