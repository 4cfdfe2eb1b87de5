import type {BrowserPool} from '../browser/browser-pool.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import type {RenderRequest} from '../render/render-composition.js'
import {checkTextFit, type TextCheckResult} from '../render/check-text-fit.js'
import type {StillSettings} from '../still/still-settings.js'
import {findingWarning, textOverflowError, type OnOverflow, type TextFinding} from '../render/text-findings.js'
import {isEngineError, toEngineError, type EngineError} from '../errors/engine-error.js'
import type {RowWarning} from './batch-manifest.js'

/** The check pass of a batch: run on each row before its render (see checkTextFit). */
export interface RowTextCheck {
  /** checkTextFit, or one bound to shared resources (the batch's browser pool). */
  check: (request: RenderRequest) => Promise<TextCheckResult>
  onOverflow: OnOverflow
  /** `--check-only`: rows are checked and recorded, never rendered. */
  checkOnly: boolean
  /**
   * The row's render checks the page it captures from, before its first frame (a video's first
   * worker, a still's one page), reporting through the request's `onTextFindings`, instead of
   * `check` compiling, planning and loading a page of its own for every row.
   */
  inRender?: boolean
}

/**
 * Has the row's render run the check pass on its own page (RowTextCheck.inRender): each outcome is
 * told to `onOutcome`, then a `fail` or a skip stops the render before its capture by throwing
 * (the caller knows from the outcome which it was, whatever the render makes of the error).
 */
export function checkInRender(textCheck: RowTextCheck, row: number, request: RenderRequest, onOutcome: (outcome: RowCheckOutcome) => void): void {
  request.onTextFindings = (findings) => {
    const outcome = decideRowText(textCheck, row, findings)
    onOutcome(outcome)
    if (outcome.error) throw outcome.error
    if (outcome.skippedReason !== undefined) throw new Error(`row ${row} ${outcome.skippedReason}`)
  }
  request.onTextCheckFailed = (error) => onOutcome(uncheckedOutcome(row, error))
}

/**
 * A batch's check pass as its options ask: `--on-overflow` (default `warn`) and `--check-only`,
 * each row's page in a process of `pool`; a still batch checks only the still's frame.
 */
export function batchTextCheck(options: Pick<ResolvedRenderOptions, 'onOverflow' | 'checkOnly'>, pool: BrowserPool, still?: StillSettings): RowTextCheck {
  return {
    check: (request) => checkTextFit({...request, pool, still}),
    onOverflow: options.onOverflow ?? 'warn',
    checkOnly: options.checkOnly ?? false,
    // A video row checked only is never rendered: its check needs no render's set-up (the media, the encoder).
    ...((still || !options.checkOnly) && {inRender: true}),
  }
}

/** Why a row checked but not rendered is skipped. */
export const CHECK_ONLY_REASON = 'checked only (--check-only): not rendered'
export const OVERFLOW_SKIP_REASON = 'text does not fit (--on-overflow skip)'

export interface RowCheckOutcome {
  /** The row's findings, as its record's warnings. */
  warnings: RowWarning[]
  /** `fail`: the row fails with this TEXT_OVERFLOW error before its render. */
  error?: EngineError
  /** `skip` with findings, or `--check-only`: the row is skipped, not rendered. */
  skippedReason?: string
  /** The check could not run: a warning for the row if its render succeeds (a failed render says why itself). */
  unchecked?: RowWarning
}

/** The warning of a row whose check pass could not run (the render then says why, or succeeds). */
export const CHECK_FAILED_CODE = 'text-check-failed'

/**
 * Runs the check pass on one row and decides what happens to it: with findings, `warn` renders it
 * with them as warnings, `fail` fails it with TEXT_OVERFLOW and `skip` skips it; under
 * `--check-only` a row that is not failed is skipped. A check that cannot run (the page throws
 * while loading) leaves the row to its render, which fails the same way and reports it as a render
 * does; under `--check-only`, or when cancelled, the error is the row's.
 */
export async function checkRowText(textCheck: RowTextCheck, row: number, request: RenderRequest): Promise<RowCheckOutcome> {
  let findings: TextCheckResult['findings']
  try {
    ;({findings} = await textCheck.check(request))
  } catch (error) {
    if (textCheck.checkOnly || isEngineError(error, 'CANCELLED') || request.signal?.aborted) throw error
    return uncheckedOutcome(row, toEngineError(error))
  }
  return decideRowText(textCheck, row, findings)
}

/** A row whose check pass could not run: left to its render, with a warning if that succeeds. */
function uncheckedOutcome(row: number, {code, message}: EngineError): RowCheckOutcome {
  return {warnings: [], unchecked: {code: CHECK_FAILED_CODE, message: `row ${row}: the text check could not run (${code}: ${message})`}}
}

/** What findings make of a row (see checkRowText). */
export function decideRowText(textCheck: Pick<RowTextCheck, 'onOverflow' | 'checkOnly'>, row: number | undefined, findings: readonly TextFinding[]): RowCheckOutcome {
  const warnings = findings.map((finding) => findingWarning(finding, row))
  if (findings.length > 0 && textCheck.onOverflow === 'fail') return {warnings, error: textOverflowError(findings, row)}
  if (findings.length > 0 && textCheck.onOverflow === 'skip') return {warnings, skippedReason: OVERFLOW_SKIP_REASON}
  return textCheck.checkOnly ? {warnings, skippedReason: CHECK_ONLY_REASON} : {warnings}
}
