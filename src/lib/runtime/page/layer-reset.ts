/**
 * Takes the whole document out of the compositor for one drawn frame and puts it back, so that the
 * browser builds every layer anew. What a layer looks like depends on frames drawn before: a
 * `will-change: transform` layer keeps the scale it was last rasterised at (a title zoomed while
 * its text changed stays drawn from its zoomed raster after it shrinks back), and layers keep the
 * pixel offsets they were rasterised at. A worker that starts at a segment has drawn other frames
 * before it than one that rendered everything up to it; with the layers rebuilt at every segment's
 * first frame, each segment looks the same whoever renders it.
 *
 * `display: none` on the root element is the one switch that drops every layer; what it costs a
 * page's state besides is put back: the scroll offsets of scrolled elements (a box loses its offset
 * when it loses its layout). CSS animations and transitions restart as on a fresh page, and seeking
 * sets their time again.
 */
export class LayerReset {
  private hidden: {style: string | null; scrolled: [Element, number, number][]} | undefined

  constructor(private readonly doc: Document) {}

  hide(): void {
    if (this.hidden) return
    const root = this.doc.documentElement
    const scrolled: [Element, number, number][] = []
    for (const element of this.doc.querySelectorAll('*')) {
      if (element.scrollTop !== 0 || element.scrollLeft !== 0) scrolled.push([element, element.scrollTop, element.scrollLeft])
    }
    this.hidden = {style: root.getAttribute('style'), scrolled}
    root.style.setProperty('display', 'none', 'important')
  }

  show(): void {
    if (!this.hidden) return
    const {style, scrolled} = this.hidden
    this.hidden = undefined
    const root = this.doc.documentElement
    if (style === null) root.removeAttribute('style')
    else root.setAttribute('style', style)
    for (const [element, top, left] of scrolled) {
      element.scrollTop = top
      element.scrollLeft = left
    }
  }
}
