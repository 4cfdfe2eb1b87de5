/**
 * Waits for Ctrl-C (SIGINT) or SIGTERM, runs `close` once, and resolves with the signal once it is
 * done. Call it before printing any "ready" line: a client may send the signal as soon as it reads
 * one, and a signal with no listener kills the process at once. The listeners stay registered
 * until `close` has finished: a library's exit hook (signal-exit) that finds no other listener
 * re-raises the signal, which would kill the process half-way through its shutdown.
 */
export function stopOnSignal(close: (signal: NodeJS.Signals) => Promise<void>): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve, reject) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return
      stopping = true
      close(signal)
        .then(() => resolve(signal), reject)
        .finally(() => {
          process.off('SIGINT', stop)
          process.off('SIGTERM', stop)
        })
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

