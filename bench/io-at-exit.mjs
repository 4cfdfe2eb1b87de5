// Loaded with `node --import` by bench/campaign.mjs into the engine it measures: as the process
// exits, its /proc/self/io (bytes written to storage, every write of the process counted, the last
// ones included) goes to the file ENGINE_BENCH_IO_FILE names, which sampling from outside would miss.
import {readFileSync, writeFileSync} from 'node:fs'

const target = process.env.ENGINE_BENCH_IO_FILE
if (target) {
  process.on('exit', () => {
    try {
      writeFileSync(target, readFileSync('/proc/self/io', 'utf8'))
    } catch {
      // No /proc (not Linux): the campaign bench reports the figure as unknown.
    }
  })
}
