import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'
import type {Fps} from '../plan/fps.js'
import type {TextFindingRecord} from '../runtime/text-check-protocol.js'

/** What `--on-overflow` does with a row whose text does not fit. */
export const ON_OVERFLOW = ['warn', 'fail', 'skip'] as const
export type OnOverflow = (typeof ON_OVERFLOW)[number]

/** A finding of the text check, with the time it was seen (the frame where it overflowed most). */
export interface TextFinding extends TextFindingRecord {
  timeSeconds: number
}

/** The code of every text check finding, as a warning or a manifest row's warning. */
export const TEXT_OVERFLOW_CODE = 'text-overflow'

/** Findings a row keeps (the largest overflows): enough to act on, and a bound on what a page can make a manifest hold. */
export const MAX_FINDINGS = 20
/** Records the page may return at all (its elements times its frames). */
const MAX_PAGE_RECORDS = 10_000
/** Characters of a selector or variable name kept. */
const MAX_NAME_CHARS = 200

/** A name from the page, printable and short: its script can make selectors hold anything (terminal escapes and bidirectional overrides included). */
const pageName = z.string().transform((text) => {
  const printable = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '\ufffd')
  return printable.length > MAX_NAME_CHARS ? `${printable.slice(0, MAX_NAME_CHARS - 1)}\u2026` : printable
})
const pixels = z.number().finite().min(0).max(1e7)
const pageFindingSchema = z.object({
  kind: z.enum(['clipped', 'outside-frame', 'max-lines']),
  element: pageName,
  variable: pageName.optional(),
  frame: z.number().int().min(0),
  overflowPx: pixels,
  clippedBy: pageName.optional(),
  lines: z.number().int().min(0).optional(),
  maxLines: z.number().int().min(0).optional(),
})
const pageFindingsSchema = z.array(pageFindingSchema).max(MAX_PAGE_RECORDS)

/** What the page's check returned, checked at the boundary: the page runs the composition's scripts too. */
export function parsePageFindings(value: unknown): TextFindingRecord[] {
  const parsed = pageFindingsSchema.safeParse(value)
  if (!parsed.success) {
    throw new EngineError('PAGE_ERROR', `the page's text check returned something else than findings (did a script replace the page's DOM methods?): ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  }
  return parsed.data
}

/** One finding per element and kind (the frame where it overflowed most), the MAX_FINDINGS largest. */
export function mergeFindings(records: readonly TextFindingRecord[], fps: Fps): TextFinding[] {
  const worst = new Map<string, TextFindingRecord>()
  for (const record of records) {
    const key = `${record.kind} ${record.element}`
    const seen = worst.get(key)
    if (!seen || record.overflowPx > seen.overflowPx) worst.set(key, record)
  }
  const kept = [...worst.values()].sort((a, b) => b.overflowPx - a.overflowPx).slice(0, MAX_FINDINGS)
  // Back in page order (by frame, then as found), so that the first finding is the first seen.
  const order = new Map([...worst.values()].map((record, index) => [record, index]))
  kept.sort((a, b) => order.get(a)! - order.get(b)!)
  return kept.map((record) => ({...record, timeSeconds: Math.round(((record.frame * fps.den) / fps.num) * 1000) / 1000}))
}

/** One sentence a person can act on: which text, which variable, how far past what, when. */
export function describeFinding(finding: TextFinding, row?: number): string {
  const where = `${row === undefined ? '' : `row ${row}: `}the text of ${finding.element}${finding.variable ? ` (variable "${finding.variable}")` : ''}`
  const when = `at ${finding.timeSeconds} s (frame ${finding.frame})`
  switch (finding.kind) {
    case 'clipped':
      return `${where} is cut off by ${finding.clippedBy}: ${finding.overflowPx} px past its edge ${when}`
    case 'outside-frame':
      return `${where} runs ${finding.overflowPx} px outside the frame ${when}`
    case 'max-lines':
      return `${where} wraps to ${finding.lines} lines, over its data-max-lines="${finding.maxLines}" by ${finding.overflowPx} px ${when}`
  }
}

/** A warning (`--on-overflow warn`) in the shape of a manifest row's warnings and render events. */
export function findingWarning(finding: TextFinding, row?: number): {code: typeof TEXT_OVERFLOW_CODE; message: string; detail: Record<string, unknown>} {
  return {code: TEXT_OVERFLOW_CODE, message: describeFinding(finding, row), detail: {...(row !== undefined && {row}), ...finding}}
}

/** `--on-overflow fail`: the render stops before its first frame, naming every finding. */
export function textOverflowError(findings: readonly TextFinding[], row?: number): EngineError {
  const listed = findings.slice(0, 5).map((finding) => describeFinding(finding))
  const more = findings.length > 5 ? `; and ${findings.length - 5} more` : ''
  return new EngineError(
    'TEXT_OVERFLOW',
    `${row === undefined ? '' : `row ${row}: `}text does not fit (--on-overflow fail): ${listed.join('; ')}${more}. Shorten the value, give the element room, or let it shrink with data-fit="shrink"`,
    {...(row !== undefined && {row}), findings},
  )
}
