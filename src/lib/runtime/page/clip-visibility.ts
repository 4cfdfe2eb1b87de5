import {HIDDEN_ATTRIBUTE} from '../page-protocol.js'
import type {TimedClip} from './clip-timing.js'

/** Frame times are exact multiples of 1/fps; this absorbs float error in authored starts like 0.1. */
const EPSILON = 1e-9

/**
 * Shows a clip only while start <= t < end. Hidden clips get `visibility: hidden` (with
 * `!important`, over their whole subtree) rather than `display: none`: layout stays the same, CSS
 * animations keep running and images stay decoded, so a clip appears on exactly its first frame.
 */
export class ClipVisibility {
  private readonly hidden = new WeakSet<Element>()

  constructor(private readonly clips: readonly TimedClip[]) {}

  static install(doc: Document): void {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(`[${HIDDEN_ATTRIBUTE}], [${HIDDEN_ATTRIBUTE}] * { visibility: hidden !important; }`)
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet]
  }

  apply(seconds: number): void {
    for (const {element, start, end} of this.clips) {
      const visible = seconds >= start - EPSILON && seconds < end - EPSILON
      if (visible === !this.hidden.has(element)) continue
      if (visible) {
        this.hidden.delete(element)
        element.removeAttribute(HIDDEN_ATTRIBUTE)
      } else {
        this.hidden.add(element)
        element.setAttribute(HIDDEN_ATTRIBUTE, '')
      }
    }
  }
}
