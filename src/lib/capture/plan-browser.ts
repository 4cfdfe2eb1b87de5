import type {BrowserChoice} from '../browser/browser-choice.js'
import type {RenderPlan} from '../plan/render-plan.js'

/**
 * Begin-frame screenshots are drawn at the process's launch scale factor, which Chromium does not
 * take below 0.5 (measured: `--force-device-scale-factor=0.25` draws at 0.5, and the page's own
 * factor is ignored). Screenshots of a page take its own factor, any value.
 */
export const MIN_BEGIN_FRAME_SCALE = 0.5

/** Whether a begin-frame screenshot comes out at the plan's size; below it, begin-frames draw and a page screenshot copies. */
export function takesBeginFrameScreenshots(plan: Pick<RenderPlan, 'scale'>): boolean {
  return plan.scale === undefined || plan.scale >= MIN_BEGIN_FRAME_SCALE
}

/**
 * The browser to capture a plan with. With begin-frame capture `--scale` is a launch setting, so
 * every door that launches for a plan (a local render, a still, a serverless chunk) takes it from
 * here. Below what begin-frame screenshots draw, the process launches at its own scale: the page
 * sets the plan's for every capture, and page screenshots take that one. (Launched at 0.25 as well,
 * more renders of examples/hello differed under load: 11 of 36, against 5 of 48.)
 */
export function browserForPlan(browser: BrowserChoice, plan: Pick<RenderPlan, 'scale'>): BrowserChoice {
  if (plan.scale === undefined || !browser.beginFrame || !takesBeginFrameScreenshots(plan)) return browser
  return {...browser, deviceScaleFactor: plan.scale}
}
