/** Where an element's text is drawn, measured from the live layout (in-page code). */

export interface Box {
  left: number
  top: number
  right: number
  bottom: number
}

/** Pixels of overhang never counted: sub-pixel layout and rounding, not text that does not fit. */
export const TOLERANCE_PX = 1

/** Elements whose text is never drawn. */
const NOT_DRAWN = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'TITLE', 'HEAD', 'svg', 'SVG'])

/**
 * The rectangles of every non-blank text node under `element`, as drawn now (transforms included),
 * each no taller than its line: a font's content area is often taller than a tight `line-height`,
 * and the glyphs of a line that fits its box would otherwise seem to overflow it.
 */
export function textRects(element: Element): Box[] {
  const doc = element.ownerDocument
  const win = doc.defaultView!
  const walker = doc.createTreeWalker(element, NodeFilter.SHOW_TEXT)
  const range = doc.createRange()
  const rects: Box[] = []
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement
    if (!node.nodeValue?.trim() || !parent || NOT_DRAWN.has(parent.tagName)) continue
    const lineHeight = parseFloat(win.getComputedStyle(parent).lineHeight)
    range.selectNodeContents(node)
    for (const rect of Array.from(range.getClientRects())) {
      if (rect.width <= 0 || rect.height <= 0) continue
      const inset = Number.isFinite(lineHeight) && rect.height > lineHeight ? (rect.height - lineHeight) / 2 : 0
      rects.push({left: rect.left, top: rect.top + inset, right: rect.right, bottom: rect.bottom - inset})
    }
  }
  return rects
}

export function union(rects: readonly Box[]): Box | undefined {
  if (rects.length === 0) return undefined
  return {
    left: Math.min(...rects.map((rect) => rect.left)),
    top: Math.min(...rects.map((rect) => rect.top)),
    right: Math.max(...rects.map((rect) => rect.right)),
    bottom: Math.max(...rects.map((rect) => rect.bottom)),
  }
}

/** Lines the rectangles sit on, top to bottom: a rectangle starts a new line when its middle is below the current line. */
export function lineBoxes(rects: readonly Box[]): Box[] {
  const lines: Box[] = []
  for (const rect of [...rects].sort((a, b) => a.top - b.top)) {
    const line = lines[lines.length - 1]
    if (line && (rect.top + rect.bottom) / 2 < line.bottom) {
      line.left = Math.min(line.left, rect.left)
      line.right = Math.max(line.right, rect.right)
      line.bottom = Math.max(line.bottom, rect.bottom)
    } else lines.push({left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom})
  }
  return lines
}

/** How far `inner` reaches past `outer` on the axes given, in CSS pixels (0 when inside). */
export function overflowPast(inner: Box, outer: Box, axes: {x: boolean; y: boolean} = {x: true, y: true}): number {
  const x = axes.x ? Math.max(0, outer.left - inner.left, inner.right - outer.right) : 0
  const y = axes.y ? Math.max(0, outer.top - inner.top, inner.bottom - outer.bottom) : 0
  return Math.max(x, y)
}

/** Whether any of `rects` is drawn inside `box` (text entirely outside a box is hidden, not cut off). */
export function anyInside(rects: readonly Box[], box: Box): boolean {
  return rects.some((rect) => rect.right > box.left && rect.left < box.right && rect.bottom > box.top && rect.top < box.bottom)
}

/** Elements with text of their own (a non-blank text node child) whose text no ancestor already covers. */
export function textElements(root: Element): Element[] {
  const found: Element[] = []
  const visit = (element: Element, covered: boolean) => {
    if (NOT_DRAWN.has(element.tagName)) return
    const own = !covered && Array.from(element.childNodes).some((node) => node.nodeType === Node.TEXT_NODE && Boolean(node.nodeValue?.trim()))
    if (own) found.push(element)
    for (const child of Array.from(element.children)) visit(child, covered || own)
  }
  visit(root, false)
  return found
}

/** A selector a person can read: the nearest id, then tags with up to two classes (and a position among siblings of the same tag). */
export function readableSelector(element: Element, stopAt: Element): string {
  const parts: string[] = []
  for (let node: Element | null = element; node && parts.length < 5; node = node.parentElement) {
    if (node.id) {
      parts.unshift(`#${CSS.escape(node.id)}`)
      break
    }
    if (node === stopAt || node === node.ownerDocument.body) {
      if (parts.length === 0) parts.unshift(describeNode(node))
      break
    }
    parts.unshift(describeNode(node))
  }
  return parts.join(' > ')
}

function describeNode(node: Element): string {
  const tag = node.tagName.toLowerCase()
  const classes = Array.from(node.classList).slice(0, 2)
  const text = `${tag}${classes.map((name) => `.${CSS.escape(name)}`).join('')}`
  const parent = node.parentElement
  // A position among siblings of the same tag when the tag and classes alone match more than one.
  const sameTag = parent ? Array.from(parent.children).filter((sibling) => sibling.tagName === node.tagName) : []
  const alike = sameTag.filter((sibling) => classes.every((name) => sibling.classList.contains(name)))
  return alike.length > 1 ? `${text}:nth-of-type(${sameTag.indexOf(node) + 1})` : text
}

/**
 * Whether the element is seen at all now: displayed, visible and not fully transparent (text fading
 * in at a clip's start is not text that does not fit).
 */
export function isSeen(element: Element): boolean {
  const win = element.ownerDocument.defaultView!
  const style = win.getComputedStyle(element)
  if (style.visibility !== 'visible') return false
  let opacity = 1
  for (let node: Element | null = element; node; node = node.parentElement) opacity *= Number(win.getComputedStyle(node).opacity)
  return opacity > 0.01
}

/** The padding box as drawn (a scaled box scales its client size too). */
export function paddingBox(element: HTMLElement): Box {
  const rect = element.getBoundingClientRect()
  const scaleX = element.offsetWidth > 0 ? rect.width / element.offsetWidth : 1
  const scaleY = element.offsetHeight > 0 ? rect.height / element.offsetHeight : 1
  const left = rect.left + element.clientLeft * scaleX
  const top = rect.top + element.clientTop * scaleY
  return {left, top, right: left + element.clientWidth * scaleX, bottom: top + element.clientHeight * scaleY}
}
