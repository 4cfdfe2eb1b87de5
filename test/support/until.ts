/**
 * Polls `condition` until it holds or `timeoutMs` passes, and says which: a wait on the real
 * condition, bounded in time, instead of a fixed sleep. The caller asserts on the answer (or on
 * the state itself, for a readable failure).
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return true
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
