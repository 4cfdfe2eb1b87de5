#!/usr/bin/env node
// Mutation check of the suite: applies each one-line mutation of src/ listed in mutations.mjs,
// runs the test files said to guard it, records whether they failed (the mutation is caught),
// and puts the source back. A mutation the suite does not catch is a missing test.
//
//   node test/mutations/run.mjs                 every mutation
//   node test/mutations/run.mjs webhook-429 ... the named ones
//
// The test setup rebuilds dist/ when a source is newer than it, so CLI tests see the mutation.
// Run it on a clean worktree: it edits src/ (and restores it, also on Ctrl-C).
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {MUTATIONS} from './mutations.mjs'

const root = join(import.meta.dirname, '..', '..')
const wanted = process.argv.slice(2)
const selected = wanted.length === 0 ? MUTATIONS : MUTATIONS.filter((mutation) => wanted.includes(mutation.id))
const unknown = wanted.filter((id) => !MUTATIONS.some((mutation) => mutation.id === id))
if (unknown.length > 0) {
  console.error(`unknown mutation ${unknown.join(', ')}; known: ${MUTATIONS.map((mutation) => mutation.id).join(', ')}`)
  process.exit(2)
}

let restore = () => {}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    restore()
    process.exit(130)
  })
}

const results = []
for (const mutation of selected) {
  const path = join(root, mutation.file)
  const original = readFileSync(path, 'utf8')
  const count = original.split(mutation.from).length - 1
  if (count !== 1) {
    results.push({id: mutation.id, outcome: `not applied (${mutation.from} occurs ${count} times in ${mutation.file})`})
    continue
  }
  restore = () => writeFileSync(path, original)
  try {
    writeFileSync(path, original.replace(mutation.from, mutation.to))
    const started = Date.now()
    const run = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...mutation.tests], {
      cwd: root,
      encoding: 'utf8',
      timeout: 20 * 60_000,
    })
    const seconds = Math.round((Date.now() - started) / 1000)
    const output = `${run.stdout}${run.stderr}`
    // Caught means the test written for it failed, not that something else broke on the way.
    const outcome =
      run.status === 0
        ? 'NOT CAUGHT'
        : run.status === null
          ? `timed out after ${seconds} s`
          : mutation.failing && !output.includes(mutation.failing)
            ? `the run failed, but not in "${mutation.failing}":\n${output.slice(-3000)}`
            : 'caught'
    results.push({id: mutation.id, outcome, seconds})
    console.log(`${mutation.id}: ${outcome} (${seconds} s)`)
  } finally {
    restore()
    restore = () => {}
  }
}

const caught = results.filter((result) => result.outcome === 'caught').length
console.log(`\n${caught} of ${results.length} mutations caught`)
for (const result of results.filter((result) => result.outcome !== 'caught')) console.log(`  ${result.id}: ${result.outcome}`)
process.exit(caught === results.length ? 0 : 1)
