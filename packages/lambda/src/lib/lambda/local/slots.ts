/** A counting semaphore: at most `limit` holders, the rest wait in arrival order. */
export class Slots {
  private held = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.held < this.limit) {
      this.held++
      return
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve))
  }

  release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.held--
  }
}
