/**
 * What the in-page text check reports (plain JSON: it crosses the DevTools protocol by value).
 * A finding is text that does not fit, at one frame.
 */

/**
 * - `clipped`: the text runs past a box that clips it (`overflow: hidden|clip|scroll|auto`,
 *   `text-overflow: ellipsis`, `line-clamp`), so part of it is cut off.
 * - `outside-frame`: part of the text lies outside the composition's frame.
 * - `max-lines`: the text wraps to more lines than its `data-max-lines`.
 */
export type TextFindingKind = 'clipped' | 'outside-frame' | 'max-lines'

export interface TextFindingRecord {
  kind: TextFindingKind
  /** A readable CSS selector of the element whose text it is (`#card > p.name`). */
  element: string
  /** The declared variable whose value the element shows, when its text is (or contains) one. */
  variable?: string
  frame: number
  /** CSS pixels of text past the edge (for `max-lines`: the height of the lines past the limit). */
  overflowPx: number
  /** `clipped`: the box that cuts the text off. */
  clippedBy?: string
  /** `max-lines`: lines drawn and lines allowed. */
  lines?: number
  maxLines?: number
}

/** A clip's window in seconds (`end` null: it stays to the end), for planning when to look. */
export interface ClipWindow {
  start: number
  end: number | null
}

/** Attributes authors write on text elements (see docs/guides/compositions/text-fit.md). */
export const FIT_ATTRIBUTE = 'data-fit'
export const FIT_MIN_ATTRIBUTE = 'data-fit-min'
export const MAX_LINES_ATTRIBUTE = 'data-max-lines'
