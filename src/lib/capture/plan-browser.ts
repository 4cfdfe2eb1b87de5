import type {BrowserChoice} from '../browser/browser-choice.js'
import type {RenderPlan} from '../plan/render-plan.js'

/**
 * The browser to capture a plan with: its `--scale` is a launch setting (begin-frame screenshots
 * follow the process's device scale factor), so every door that launches for a plan (a local
 * render, a still, a serverless chunk) takes it from here.
 */
export function browserForPlan(browser: BrowserChoice, plan: Pick<RenderPlan, 'scale'>): BrowserChoice {
  return plan.scale === undefined ? browser : {...browser, deviceScaleFactor: plan.scale}
}
