/** Memory one row at a time needs: a browser (~256 MB with its page) and an encoder. */
const BYTES_PER_ROW = 512 * 1024 ** 2
/** More rows at once than this buys nothing on machines of this kind and multiplies memory. */
const MAX_AUTO_ROWS = 8

export interface MachineLoad {
  cores: number
  /** Cores busy with other work now (see busyCores). */
  busyCores: number
  freeMemoryBytes: number
}

export interface BatchLayout {
  /** Rows rendered at once. */
  rows: number
  /** Capture workers of each row, when the batch decides it (auto); otherwise the render's own. */
  workersPerRow?: number
}

/**
 * `--batch-concurrency auto`: short rows are dominated by fixed costs (page load, encoder start,
 * assembly) that leave cores idle, so several one-worker rows at once keep every core busy where
 * one row with several workers cannot (measured: 2 rows at once 1.28x 1 row on 2 cores, bench
 * batch). As many rows as cores not already busy, bounded by free memory and by the rows there
 * are, each with one worker. A number is taken as it is.
 */
export function batchLayout(requested: number | 'auto', pendingRows: number, machine: MachineLoad): BatchLayout {
  if (requested !== 'auto') return {rows: requested}
  const idleCores = Math.max(1, Math.round(machine.cores - machine.busyCores))
  const byMemory = Math.max(1, Math.floor(machine.freeMemoryBytes / BYTES_PER_ROW))
  return {rows: Math.max(1, Math.min(idleCores, byMemory, MAX_AUTO_ROWS, pendingRows)), workersPerRow: 1}
}
