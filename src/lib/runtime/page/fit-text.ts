import {FIT_ATTRIBUTE, FIT_MIN_ATTRIBUTE, MAX_LINES_ATTRIBUTE} from '../text-check-protocol.js'
import {lineBoxes, overflowPast, paddingBox, textRects, TOLERANCE_PX, union} from './text-geometry.js'

/** The smallest size `data-fit="shrink"` goes to without `data-fit-min`, as a share of the author's size. */
const DEFAULT_MIN_SHARE = 0.5

/**
 * `data-fit="shrink"`: each such element's font size goes down until its text fits its box (the
 * text inside its padding box, measured as the check pass measures it) and its `data-max-lines`, and no further than
 * `data-fit-min` pixels. Sizes are whole pixels below the author's size, found by a binary search
 * over layouts measured after fonts loaded: every page of a render (workers, chunks, the preview)
 * chooses the same size for the same text. Text that fits keeps the author's size untouched.
 */
export function fitText(doc: Document): void {
  for (const element of Array.from(doc.querySelectorAll(`[${FIT_ATTRIBUTE}="shrink"]`))) {
    if (element instanceof HTMLElement) shrinkToFit(element)
  }
}

function shrinkToFit(element: HTMLElement): void {
  const win = element.ownerDocument.defaultView!
  // An element without a box of its own (display: inline or none) has nothing to fit into.
  if (element.clientWidth === 0 && element.clientHeight === 0) return
  const authorPx = parseFloat(win.getComputedStyle(element).fontSize)
  if (!(authorPx > 0) || fits(element)) return
  const written = Number(element.getAttribute(FIT_MIN_ATTRIBUTE))
  const minPx = written > 0 && written <= authorPx ? written : Math.max(1, Math.round(authorPx * DEFAULT_MIN_SHARE))
  // Candidate k is authorPx - k (the last one minPx itself); the smallest k that fits wins.
  const steps = Math.ceil(authorPx - minPx)
  const size = (k: number) => Math.max(minPx, authorPx - k)
  const setSize = (px: number) => element.style.setProperty('font-size', `${px}px`, 'important')
  let low = 1
  let high = steps
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    setSize(size(middle))
    if (fits(element)) high = middle
    else low = middle + 1
  }
  setSize(size(low))
}

/** The check pass's own measure: the text (each line no taller than its line height) inside the padding box, within its lines. */
function fits(element: HTMLElement): boolean {
  const rects = textRects(element)
  const text = union(rects)
  if (text && overflowPast(text, paddingBox(element)) > TOLERANCE_PX) return false
  const maxLines = Number(element.getAttribute(MAX_LINES_ATTRIBUTE))
  return !(Number.isInteger(maxLines) && maxLines > 0 && lineBoxes(rects).length > maxLines)
}
