/**
 * Places where the test suite stops engine on purpose, to check what a crash at exactly that
 * moment leaves behind (test/batch/kill-resume.test.ts): random kill times almost never land in
 * these few-millisecond windows.
 */
export type FaultPoint =
  /** A compaction has moved the journal aside and a row's change reached the new one; manifest.json is not rewritten yet. */
  | 'compaction-rotated'
  /** A batch row's output is in place; its journal line is not written yet. */
  | 'row-output-renamed'
  /** A render cache store has written its entry into the staging folder; it is not renamed into place yet. */
  | 'cache-store'

/** `<point>` stops the first time the point is reached, `<point>@N` the N-th time. Read only by tests. */
export const FAULT_ENV = 'ENGINE_TEST_FAULT'

const reached = new Map<FaultPoint, number>()

/** How long a point waits for its `ready` condition before it stops the process anyway. */
const READY_WAIT_MS = 2000

/**
 * Stops the process with SIGKILL, as a power cut or the OOM killer would (no handler, no clean-up,
 * nothing flushed), when ENGINE_TEST_FAULT names this point and this is the time it asks for.
 * `ready` (polled, at most 2 s) lets a point wait for the state that makes the window interesting.
 * With the variable unset, as for every user, it returns at once.
 */
export async function faultPoint(point: FaultPoint, ready?: () => boolean): Promise<void> {
  const wanted = process.env[FAULT_ENV]
  if (wanted === undefined || wanted.split('@')[0] !== point) return
  const count = (reached.get(point) ?? 0) + 1
  reached.set(point, count)
  if (count !== Number(wanted.split('@')[1] ?? 1)) return
  const deadline = Date.now() + READY_WAIT_MS
  while (ready && !ready() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  process.kill(process.pid, 'SIGKILL')
  // The signal is delivered before the next instruction that matters; this wait makes sure of it.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000)
}
