import type {RenderPlan} from '../plan/render-plan.js'
import {PageRequests, type RequestNotice} from '../sandbox/page-requests.js'

export interface PlanRequestsOptions {
  signal?: AbortSignal
  onNotice?: (notice: RequestNotice) => void
}

/** File name the compiled page is served as under `plan.baseUrl`; error locations name it. */
export function documentNameOf(plan: Pick<RenderPlan, 'documentName'>): string {
  return plan.documentName ?? 'index.html'
}

/** The request policy of a render of `plan`: its page, its project and its network settings. */
export function planPageRequests(plan: RenderPlan, options: PlanRequestsOptions = {}): PageRequests {
  return new PageRequests({
    html: plan.html,
    documentUrl: new URL(documentNameOf(plan), plan.baseUrl).href,
    projectDir: plan.projectDir,
    network: plan.network,
    signal: options.signal,
    onNotice: options.onNotice,
  })
}
