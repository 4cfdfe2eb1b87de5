import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/plain-output.ts', 'test/support/register-builtin-plugins.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Browser and ffmpeg tests are CPU-heavy; two cores run two files at a time at most.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
})
