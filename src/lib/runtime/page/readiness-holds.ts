/**
 * `__engine.hold(label)`: the page's own "not ready yet" (data it fetches, a file it decodes, a
 * chart it builds). Each hold is released by calling the function it returned, once; readiness
 * waits until none is held, and a readiness timeout names every label still held.
 */
export class ReadinessHolds {
  private readonly held = new Map<number, string>()
  private next = 0
  private waiters: (() => void)[] = []

  hold(label: unknown): () => void {
    const id = ++this.next
    this.held.set(id, typeof label === 'string' && label.trim() !== '' ? label : `hold #${id}`)
    return () => {
      if (!this.held.delete(id) || this.held.size > 0) return
      const waiters = this.waiters
      this.waiters = []
      for (const resolve of waiters) resolve()
    }
  }

  /** Labels still held, in the order they were taken. */
  labels(): string[] {
    return [...this.held.values()]
  }

  get count(): number {
    return this.held.size
  }

  /** Resolves once no hold is held (at once when none is). */
  released(): Promise<void> {
    return this.held.size === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve))
  }
}
