import {INSTANCE_ATTRIBUTE} from '../../compose/runtime-instance.js'
import type {RuntimeConfig} from '../runtime-config.js'
import {MAX_LINES_ATTRIBUTE, type TextFindingRecord} from '../text-check-protocol.js'
import {anyInside, isSeen, lineBoxes, overflowPast, paddingBox, readableSelector, textElements, textRects, TOLERANCE_PX, union, type Box} from './text-geometry.js'

const CLIPPING = new Set(['hidden', 'clip', 'scroll', 'auto'])

interface Clipper {
  element: Element
  box: Box
  axes: {x: boolean; y: boolean}
}

/**
 * Finds the text of the page that does not fit, as it is drawn now: text cut off by a box that
 * clips it, text partly outside the frame, text over its `data-max-lines`. Text not seen now
 * (hidden, transparent, or entirely outside its clipping box, as before a reveal) is not reported.
 */
export function findTextOverflow(doc: Document, root: Element, config: RuntimeConfig, frame: number): TextFindingRecord[] {
  const win = doc.defaultView!
  const frameBox: Box = {left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight}
  const findings: TextFindingRecord[] = []
  const candidates = new Set([...textElements(root), ...Array.from(root.querySelectorAll(`[${MAX_LINES_ATTRIBUTE}]`))])
  for (const element of candidates) {
    const rects = textRects(element)
    const text = union(rects)
    if (!text) continue
    const about = () => ({element: readableSelector(element, root), ...variableShown(element, config), frame})
    const maxLines = Number(element.getAttribute(MAX_LINES_ATTRIBUTE))
    if (Number.isInteger(maxLines) && maxLines > 0) {
      const lines = lineBoxes(rects)
      if (lines.length > maxLines) {
        const overflowPx = round(lines[lines.length - 1].bottom - lines[maxLines - 1].bottom)
        findings.push({kind: 'max-lines', ...about(), overflowPx, lines: lines.length, maxLines})
      }
    }
    if (!isSeen(element)) continue
    let clipped = false
    for (const clipper of clippingBoxes(element, root)) {
      // Entirely outside the box that clips it: hidden on purpose (a mask before its reveal).
      if (!anyInside(rects, clipper.box)) {
        clipped = true
        break
      }
      const overflowPx = overflowPast(text, clipper.box, clipper.axes)
      if (overflowPx > TOLERANCE_PX) {
        findings.push({kind: 'clipped', ...about(), overflowPx: round(overflowPx), clippedBy: readableSelector(clipper.element, root)})
        clipped = true
        break
      }
    }
    if (clipped || !anyInside(rects, frameBox)) continue
    const outside = overflowPast(text, frameBox)
    if (outside > TOLERANCE_PX) findings.push({kind: 'outside-frame', ...about(), overflowPx: round(outside)})
  }
  return findings
}

/**
 * The boxes that clip the element's text, nearest first, up to (not including) the root, whose
 * box is the frame: an absolutely positioned element escapes the clipping of ancestors that are
 * not its containing block, a fixed one of all but transformed ones.
 */
function clippingBoxes(element: Element, root: Element): Clipper[] {
  const win = element.ownerDocument.defaultView!
  const clippers: Clipper[] = []
  let position = win.getComputedStyle(element).position
  for (let node: Element | null = element; node && node !== root && node !== element.ownerDocument.documentElement; node = node.parentElement) {
    const style = win.getComputedStyle(node)
    if (node !== element) {
      const positioned = style.position !== 'static' || style.transform !== 'none'
      const contains = position === 'absolute' ? positioned : position === 'fixed' ? style.transform !== 'none' : true
      if (!contains) continue
    }
    position = style.position
    const clamped = (style.getPropertyValue('-webkit-line-clamp') || 'none') !== 'none'
    const axes = {x: CLIPPING.has(style.overflowX), y: CLIPPING.has(style.overflowY) || clamped}
    if ((axes.x || axes.y) && node instanceof HTMLElement) clippers.push({element: node, box: paddingBox(node), axes})
  }
  return clippers
}

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase()

/**
 * The declared variable whose value the element shows: the one its text equals, else the longest
 * one its text contains. Values of a sub-composition's element are that instance's.
 */
export function variableShown(element: Element, config: RuntimeConfig): {variable?: string} {
  const instance = element.closest(`[${INSTANCE_ATTRIBUTE}]`)?.getAttribute(INSTANCE_ATTRIBUTE)
  const values = instance ? (config.instances[instance]?.variables ?? {}) : config.variables
  const text = normalize(element.textContent ?? '')
  const shown = Object.entries(values)
    .filter((entry): entry is [string, string | number] => typeof entry[1] === 'string' || typeof entry[1] === 'number')
    .map(([id, value]) => ({id, value: normalize(String(value))}))
    .filter(({value}) => value.length > 0)
  const exact = shown.find(({value}) => value === text)
  if (exact) return {variable: exact.id}
  const within = shown.filter(({value}) => value.length >= 2 && text.includes(value)).sort((a, b) => b.value.length - a.value.length)[0]
  return within ? {variable: within.id} : {}
}

const round = (px: number) => Math.round(px * 10) / 10
