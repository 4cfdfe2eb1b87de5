import type {BrowserChoice} from '../browser/browser-choice.js'
import {outputExtension, type FormatPlugin} from '../encode/format-plugin.js'
import {renderCacheKey, toolchainOf} from '../render-cache/cache-key.js'
import {recordInputs} from '../render-cache/input-files.js'
import {renderCacheFor, type AcceptEntry, type CacheClaim, type CacheTarget, type RenderCache, type StoreInput} from '../render-cache/render-cache.js'
import type {RenderPlan} from '../plan/render-plan.js'
import type {PageRequests} from '../sandbox/page-requests.js'
import type {RenderEvent} from './render-events.js'
import type {TextFinding} from './text-findings.js'

/** Which render cache a request uses: the environment's unless the request or its options say no. */
export function chooseRenderCache(requested: RenderCache | false | undefined, optionsCache: boolean | undefined): RenderCache | undefined {
  if (requested === false || optionsCache === false) return undefined
  return requested ?? renderCacheFor()
}

/**
 * The render cache stores one output file and its poster: a frame directory (png-sequence), an
 * output with companion files (an HLS playlist's segments) or a captions sidecar always renders.
 */
export function singleFileOutput(format: FormatPlugin, plan: Readonly<RenderPlan>): boolean {
  return outputExtension(format) !== undefined && !('companionFilePattern' in format && format.companionFilePattern) && plan.captions?.sidecar !== true
}

export interface CacheClaimInput {
  cache: RenderCache | undefined
  kind: StoreInput['kind']
  plan: Readonly<RenderPlan>
  /** What changes the bytes beside the plan (a poster, a still's frame and image format). */
  extra: Record<string, unknown>
  browser: BrowserChoice
  ffmpeg: {ffmpegPath: string; version: string}
  format: FormatPlugin
  targets: CacheTarget[]
  emit: (event: RenderEvent) => void
  /** Looks at a stored entry before it is copied (see AcceptEntry). */
  accept?: AcceptEntry
}

/**
 * The `accept` of a render that runs the text check: an entry is taken only if its own render was
 * checked, and its findings are told as this render's (an entry stored unchecked is rendered again, checked).
 */
export function acceptCheckedEntry(onTextFindings: ((findings: TextFinding[]) => void | Promise<void>) | undefined): AcceptEntry | undefined {
  return onTextFindings && (async (entry) => entry.textFindings !== undefined && (await onTextFindings(entry.textFindings), true))
}

/**
 * Claims the render's key in the cache: a hit has put the stored files at the targets (checked
 * against their size and sha256); a miss leaves the render to the caller, who stores its files
 * and releases the claim. A damaged entry is reported and dropped. Undefined without a cache.
 */
export async function claimCachedOutput(input: CacheClaimInput): Promise<CacheClaim | undefined> {
  if (!input.cache) return undefined
  const toolchain = await toolchainOf(input.browser, input.ffmpeg, input.format)
  const key = renderCacheKey({kind: input.kind, plan: input.plan, toolchain, extra: input.extra})
  const claim = await input.cache.claim(key, input.targets, input.plan.projectDir, input.accept)
  if (!claim.lookup.hit && claim.lookup.reason === 'corrupt') {
    input.emit({type: 'warning', code: 'render-cache-corrupt', message: `the render cache's entry ${key.slice(0, 12)} was damaged (${claim.lookup.detail}); it was removed and the output is rendered again`})
  }
  if (!claim.lookup.hit && claim.lookup.reason === 'unreadable') {
    input.emit({type: 'warning', code: 'render-cache-unreadable', message: `the render cache's entry ${key.slice(0, 12)} could not be copied (${claim.lookup.detail}); the output is rendered`})
  }
  return claim
}

/**
 * Stores a finished render under its claim. A render that loaded remote URLs is not stored: what a
 * URL serves may change while the plan stays the same. A store that fails is a warning; the
 * render itself succeeded.
 */
export async function storeCachedOutput(
  claim: CacheClaim | undefined,
  input: Omit<StoreInput, 'inputs'> & {requests: PageRequests; emit: (event: RenderEvent) => void},
): Promise<void> {
  if (!claim || input.requests.fetchedUrls.length > 0) return
  const {requests, emit, ...entry} = input
  const failure = await claim.store({...entry, inputs: await recordInputs(requests.projectFilesRead)})
  if (failure) emit({type: 'warning', code: 'render-cache-store-failed', message: `the output could not be stored in the render cache: ${failure.message}`})
}
