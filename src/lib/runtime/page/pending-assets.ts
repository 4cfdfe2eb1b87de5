/**
 * Images and fonts a frame must not be painted without. The readiness check waits for all of
 * them once; after that a MutationObserver tells each seek which images changed, so an unchanged
 * page costs one `takeRecords()` per frame.
 */
export class PendingAssets {
  private readonly observer: MutationObserver
  /**
   * Records delivered to the callback. Delivery happens at any microtask checkpoint (an `await`
   * inside the seek is enough), and delivered records are gone from `takeRecords()`: without
   * keeping them, an image a timer adds would be missed whenever the seek awaits anything after it.
   */
  private delivered: MutationRecord[] = []

  constructor(private readonly doc: Document) {
    this.observer = new MutationObserver((records) => {
      this.delivered.push(...records)
    })
  }

  /** Watches image insertions and source changes from now on (call before the page parses). */
  observe(): void {
    this.observer.observe(this.doc, {subtree: true, childList: true, attributes: true, attributeFilter: ['src', 'srcset']})
  }

  /** Images not decoded yet, by URL, for the readiness report. */
  undecodedImages(): string[] {
    return Array.from(this.doc.images)
      .filter((image) => image.src && !image.complete)
      .map((image) => image.currentSrc || image.src)
  }

  async waitForAllImages(): Promise<void> {
    this.takeChanges()
    await decodeAll(Array.from(this.doc.images))
  }

  /**
   * Waits only for what changed since the last call: new or re-pointed images, fonts still
   * loading. True when it waited for something, so that the frame is drawn afresh.
   */
  async settleChanges(): Promise<boolean> {
    const images = new Set<HTMLImageElement>()
    for (const record of this.takeChanges()) {
      if (record.type === 'attributes') {
        if (record.target instanceof HTMLImageElement) images.add(record.target)
        continue
      }
      for (const node of record.addedNodes) {
        if (node instanceof HTMLImageElement) images.add(node)
        else if (node instanceof Element) for (const image of node.querySelectorAll('img')) images.add(image)
      }
    }
    const waits: Promise<unknown>[] = []
    if (images.size > 0) waits.push(decodeAll([...images]))
    if (this.doc.fonts.status === 'loading') waits.push(this.doc.fonts.ready)
    if (waits.length > 0) await Promise.all(waits)
    return waits.length > 0
  }

  private takeChanges(): MutationRecord[] {
    const records = [...this.delivered, ...this.observer.takeRecords()]
    this.delivered = []
    return records
  }
}

/** A broken image is the author's to see in the output, not a reason to stop: failures are ignored. */
function decodeAll(images: HTMLImageElement[]): Promise<unknown> {
  return Promise.all(images.filter((image) => image.src).map((image) => image.decode().catch(() => undefined)))
}
