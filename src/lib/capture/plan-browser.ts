import type {BrowserChoice} from '../browser/browser-choice.js'
import type {RenderPlan} from '../plan/render-plan.js'

/**
 * Begin-frame screenshots are drawn at the process's launch scale factor, which Chromium does not
 * take below 0.5 (measured: `--force-device-scale-factor=0.25` draws at 0.5, and the page's own
 * factor is ignored). Screenshots of a page take its own factor, any value.
 */
export const MIN_BEGIN_FRAME_SCALE = 0.5

/**
 * The browser to capture a plan with. With begin-frame capture `--scale` is a launch setting, so
 * every door that launches for a plan (a local render, a still, a serverless chunk) takes it from
 * here; below what begin-frame can draw, the plan is captured with screenshots at the page's own
 * scale factor instead (the page sets it for every capture).
 */
export function browserForPlan(browser: BrowserChoice, plan: Pick<RenderPlan, 'scale'>): BrowserChoice {
  if (plan.scale === undefined || !browser.beginFrame) return browser
  if (plan.scale < MIN_BEGIN_FRAME_SCALE) return {...browser, beginFrame: false}
  return {...browser, deviceScaleFactor: plan.scale}
}
