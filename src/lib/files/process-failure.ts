/** What execFile's error says of a program that failed: its stderr, its exit status or signal. */
export interface ProcessFailure {
  /** stderr's last lines (trimmed), else the error's own message. */
  output: string
  /** The signal that ended it (a crash: SIGSEGV, SIGABRT…), when one did. */
  signal?: string
  /** One line for a message: the output, then `(<program> was killed by SIGSEGV)` when a signal ended it. */
  text: string
}

const TAIL_CHARS = 2000

/**
 * Describes an execFile failure so that nothing is hidden: a program that crashes writes nothing
 * on stderr (the npm ffprobe 4.1 on MPEG-TS dies of SIGSEGV), and an empty message would say
 * nothing at all; the signal is what tells it apart from bad input.
 */
export function processFailure(program: string, error: unknown): ProcessFailure {
  const failure = error as {stderr?: string | Buffer; signal?: NodeJS.Signals | null; message?: string}
  const stderr = String(failure.stderr ?? '').trim()
  const output = (stderr.length > TAIL_CHARS ? `…${stderr.slice(-TAIL_CHARS)}` : stderr) || String(failure.message ?? error).trim()
  const signal = failure.signal ?? undefined
  return {output, signal, text: signal ? `${output} (${program} was killed by ${signal})` : output}
}
