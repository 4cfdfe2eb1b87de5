import type {Reporter, SerializedError, TestCase, TestModule, TestSuite} from 'vitest/node'

type Entity = TestModule | TestSuite

/**
 * Ends the run with one plain `tests: N passed, N failed, N skipped` line, a closing line any CI
 * log reader understands regardless of the test runner. It must never read "0 failed" when vitest
 * fails: a test that did not run because its `beforeAll` threw counts as failed, not skipped; a
 * failed `afterAll`, a file that failed to load and an unhandled error each count as one failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
    let passed = 0
    let failed = unhandledErrors.length
    let skipped = 0
    for (const testModule of testModules) {
      const brokenEntities = [testModule, ...testModule.children.allSuites()].filter((entity) => entity.errors().length > 0)
      const blamed = new Set<Entity>()
      for (const test of testModule.children.allTests()) {
        const state = test.result().state
        const brokenAncestor = state === 'skipped' || state === 'pending' ? firstBrokenAncestor(test) : undefined
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else if (brokenAncestor && test.options.mode !== 'skip' && test.options.mode !== 'todo') {
          failed++
          blamed.add(brokenAncestor)
        } else skipped++
      }
      // A hook or load error that left no test failed (afterAll, an import that threw) still fails the run.
      failed += brokenEntities.filter((entity) => !blamed.has(entity)).length
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}

function firstBrokenAncestor(test: TestCase): Entity | undefined {
  for (let entity: Entity = test.parent; ; entity = entity.parent) {
    if (entity.errors().length > 0) return entity
    if (entity.type === 'module') return undefined
  }
}
