// Writes test/support/file-seconds.json (how long each test file took, which the suite's
// sequencer uses to start the longest files first) from a vitest JSON report of a full run:
//   npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/report.json
//   node scripts/test-file-seconds.mjs /tmp/report.json
import {readFileSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'

const root = join(import.meta.dirname, '..')
const reportPath = process.argv[2]
if (!reportPath) {
  console.error('usage: node scripts/test-file-seconds.mjs <vitest JSON report of a full run>')
  process.exit(1)
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'))
const entries = report.testResults
  .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10])
  .sort(([a, secondsA], [b, secondsB]) => secondsB - secondsA || a.localeCompare(b))
writeFileSync(join(root, 'test', 'support', 'file-seconds.json'), `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`)
console.log(`test/support/file-seconds.json: ${entries.length} files`)
