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
import {execFileSync, spawn} from 'node:child_process'
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
let running
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // The test run is its own process group: end all of it (browsers, servers), then put src back.
    if (running) process.kill(-running.pid, 'SIGKILL')
    restore()
    process.exit(130)
  })
}

/** Runs vitest on `tests`, bounded in time; resolves with its exit status (null when cut off) and output. */
function runTests(tests, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...tests], {cwd: root, env, detached: true})
    running = child
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 20 * 60_000)
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      running = undefined
      resolve({status: signal ? null : status, output})
    })
  })
}

// One build of the clean sources first; the mutations whose tests need no rebuild run on it
// first, before any mutation has been built into dist/.
console.log('building the clean sources once')
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {cwd: root, stdio: ['ignore', 'ignore', 'inherit']})
const ordered = [...selected.filter((mutation) => mutation.dist === false), ...selected.filter((mutation) => mutation.dist !== false)]

const results = []
for (const mutation of ordered) {
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
    // `dist: false`: the tests import the mutated module from src/ and run nothing from dist/, so
    // the rebuild the test setup would make (minutes on a loaded machine) changes nothing.
    const env = mutation.dist === false ? {...process.env, ENGINE_TEST_DIST: 'as-is'} : process.env
    const run = await runTests(mutation.tests, env)
    const seconds = Math.round((Date.now() - started) / 1000)
    const output = run.output
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
    // What failed, so that a catch for the wrong reason shows.
    const failures = output.split('\n').filter((line) => /\bFAIL\b/.test(line)).slice(0, 3)
    for (const line of failures) console.log(`    ${line.replace(/\x1b\[[0-9;]*m/g, '').trim()}`)
  } finally {
    restore()
    restore = () => {}
  }
}

const caught = results.filter((result) => result.outcome === 'caught').length
console.log(`\n${caught} of ${results.length} mutations caught`)
for (const result of results.filter((result) => result.outcome !== 'caught')) console.log(`  ${result.id}: ${result.outcome}`)
process.exit(caught === results.length ? 0 : 1)
