/**
 * Takes the whole document out of the compositor for one drawn frame and puts it back, so that the
 * browser builds every layer anew. What a layer looks like depends on frames drawn before: a
 * `will-change: transform` layer keeps the scale it was last rasterised at (a title zoomed while
 * its text changed stays drawn from its zoomed raster after it shrinks back), and layers keep the
 * pixel offsets they were rasterised at. A worker that starts at a segment has drawn other frames
 * before it than one that rendered everything up to it; with the layers rebuilt at every segment's
 * first frame, each segment looks the same whoever renders it.
 *
 * `display: none` on the root element is the one switch that drops every layer. The browser keeps
 * scroll offsets through it; CSS animations and transitions restart as on a fresh page, and the
 * next seek sets their time again.
 */
export class LayerReset {
  /** The root's style attribute before hide(), null when it had none; undefined while shown. */
  private style: string | null | undefined

  constructor(private readonly doc: Document) {}

  hide(): void {
    if (this.style !== undefined) return
    const root = this.doc.documentElement
    this.style = root.getAttribute('style')
    root.style.setProperty('display', 'none', 'important')
  }

  show(): void {
    if (this.style === undefined) return
    const root = this.doc.documentElement
    if (this.style === null) root.removeAttribute('style')
    else root.setAttribute('style', this.style)
    this.style = undefined
  }
}
