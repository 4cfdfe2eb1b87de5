import type {BenchmarkResult} from './benchmark-result.js'

/** The result as a table of frames/s per configuration, then the recommendation. */
export function formatBenchmark(result: BenchmarkResult): string {
  const header = `${result.composition}: ${result.width}x${result.height}, ${result.frames} frames at ${result.fps} fps, ${result.format} ${result.quality}; ${result.cores} cores`
  const rows = [
    ['workers', 'capture', 'frames/s', 'seconds'],
    ...result.configurations.map((measurement) => [
      String(measurement.workers),
      measurement.captureMode,
      measurement.framesPerSecond.toFixed(1),
      measurement.seconds.toFixed(2),
    ]),
  ]
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  const table = rows.map((row) => row.map((cell, column) => (column === 1 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  '))
  const {recommendation} = result
  const auto = recommendation.workers === result.autoWorkers ? 'the same as --workers auto' : `--workers auto would use ${result.autoWorkers}`
  return [
    header,
    '',
    ...table,
    '',
    `recommendation: --workers ${recommendation.workers} (${recommendation.framesPerSecond.toFixed(1)} frames/s, ${recommendation.captureMode} capture; ${auto})`,
  ].join('\n') + '\n'
}
