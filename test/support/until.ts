/**
 * Polls `condition` until it holds or `timeoutMs` passes, and says which: a wait on the real
 * condition, bounded in time, instead of a fixed sleep. The caller asserts on the answer (or on
 * the state itself, for a readable failure). A condition that sends a request polls at a wider
 * `intervalMs`, so the loop is bounded in count as well as in time.
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, intervalMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return true
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
