import {decideRowText, type RowCheckOutcome} from 'html-video-engine/internal/lib/batch/row-text-check.js'
import type {RenderPlan} from 'html-video-engine/internal/lib/plan/render-plan.js'
import {checkPlanText} from 'html-video-engine/internal/lib/render/check-text-fit.js'
import {batchRowOf} from '../batch/batch-ids.js'
import type {RenderConfig} from '../render-input.js'
import {functionProfileBrowser} from '../runtime/function-browser.js'

/**
 * The check pass of a render that asked for it (`onOverflow`, `checkOnly`; a batch row's, from
 * `render-batch --on-overflow`/`--check-only`), run in the plan step on the function's browser
 * before any chunk: the core's check on the planned page and its decision, as a local batch row
 * gets them. A batch row's findings name its row.
 */
export async function planTextCheck(planned: RenderPlan, config: RenderConfig, renderId: string): Promise<RowCheckOutcome | undefined> {
  if (config.onOverflow === undefined && !config.checkOnly) return undefined
  const {findings} = await checkPlanText(planned, {browser: await functionProfileBrowser()})
  return decideRowText({onOverflow: config.onOverflow ?? 'warn', checkOnly: config.checkOnly ?? false}, batchRowOf(renderId)?.index, findings)
}
