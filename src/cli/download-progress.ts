const BAR_WIDTH = 24

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

/** `[#########---------------]  38%  34.2/90.1 MB` (no total known: just the bytes so far). */
export function progressBarText(label: string, done: number, total: number): string {
  if (total <= 0) return `${label}  ${megabytes(done)}`
  const fraction = Math.min(1, done / total)
  const filled = Math.round(fraction * BAR_WIDTH)
  const percent = String(Math.floor(fraction * 100)).padStart(3)
  return `${label}  [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${percent}%  ${(done / 1e6).toFixed(1)}/${megabytes(total)}`
}

/**
 * Download progress on stderr: a bar redrawn in place on a terminal (at most ten times a second),
 * a line every 25 % when stderr is a file or a pipe, so that logs stay short.
 */
export function downloadProgress(stream: NodeJS.WriteStream = process.stderr): {update: (label: string, done: number, total: number) => void; end: () => void} {
  const tty = stream.isTTY === true
  let lastDraw = 0
  let lastLabel = ''
  let lastQuarter = -1
  let drawn = false
  return {
    update(label, done, total) {
      if (label !== lastLabel) {
        if (drawn && tty) stream.write('\n')
        lastLabel = label
        lastQuarter = -1
      }
      if (tty) {
        const now = Date.now()
        if (now - lastDraw < 100 && done < total) return
        lastDraw = now
        stream.write(`\r${progressBarText(label, done, total)}\x1b[K`)
        drawn = true
        return
      }
      const quarter = total > 0 ? Math.floor((done / total) * 4) : -1
      if (quarter > lastQuarter) {
        lastQuarter = quarter
        stream.write(progressBarText(label, done, total) + '\n')
      }
    },
    end() {
      if (drawn && tty) stream.write('\n')
      drawn = false
      lastLabel = ''
    },
  }
}
