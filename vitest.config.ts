import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {defineConfig} from 'vitest/config'
import {memoryScratchRoot} from './test/support/memory-scratch.js'
import SlowFirstSequencer from './test/support/slow-first-sequencer.js'

// One time zone for the suite and every process it starts (engine CLIs, servers, browsers inherit
// it): what a test expects of a date must not depend on where the machine is.
process.env.TZ = 'UTC'
// The suite starts Node several hundred times (each `engine` CLI, server and stack), each compiling
// the same modules: V8's code cache on disk takes about an eighth off each start's CPU (0.80 ->
// 0.70 CPU-s for `engine render`). It changes nothing a test sees; Node validates it by content.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'engine-test-node-compile-cache')
// Without the optimising compiler a short process uses about a fifth less CPU (`engine render` of a
// missing file: 0.43 -> 0.34 CPU-s), and the suite is hundreds of short processes on two cores:
// every engine CLI (ENGINE_V8_FLAGS) and every test file's own process (execArgv below).
process.env.ENGINE_V8_FLAGS ??= '--no-opt'
// Temporary files in memory where the machine has room for them (see memory-scratch.ts), for the
// run and every process it starts; a TMPDIR the caller chose is kept.
if (process.env.TMPDIR === undefined) {
  const root = memoryScratchRoot()
  if (root) process.env.TMPDIR = process.env.ENGINE_TEST_MEMORY_TMPDIR = root
}

export default defineConfig({
  resolve: {
    // The companion (packages/lambda) imports the core through its package exports; tests run both
    // from source, so those imports load the same core modules the tests do (one EngineError class).
    alias: [{find: /^html-video-engine\/internal\/(.*)$/, replacement: `${import.meta.dirname}/src/$1`}],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/plain-output.ts', 'test/support/register-builtin-plugins.ts', 'test/support/restore-env.ts'],
    // The pinned ffmpeg's publisher is outside: every download of it in the suite (and in the CLIs
    // it starts) goes to a closed loopback port unless a test serves the archive itself.
    // The render cache is off: files render the same fixtures with the same settings, and one file's
    // render must not be another's cache hit (or a kill test's instant row). The cache's own tests
    // give it a directory of their own (ENGINE_RENDER_CACHE=<dir>, or a RenderCache in-process).
    env: {TZ: 'UTC', ENGINE_FFMPEG_MIRROR: 'http://127.0.0.1:9/no-ffmpeg-mirror', ENGINE_RENDER_CACHE: 'off'},
    execArgv: ['--no-opt'],
    testTimeout: 60_000,
    // Hooks are where test files start their processes (servers, browsers, stacks): room for a loaded machine.
    hookTimeout: 180_000,
    // Three files at a time on two cores: many files spend half their time waiting (on a local
    // stack's polling, webhook retry delays, a server's answer, process start-up), and a third file
    // uses the core such a wait leaves idle. Measured alone, help-examples used 37 CPU-seconds in
    // its 73 s, kill-resume 8 in 38, webhook-doors 5 in 31 (quiet two-file run of 26 November).
    maxWorkers: 3,
    sequence: {sequencer: SlowFirstSequencer},
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
})
