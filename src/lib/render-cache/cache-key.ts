import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {BrowserChoice} from '../browser/browser-choice.js'
import {loadRuntimeBundle} from '../capture/runtime-bundle.js'
import type {FormatPlugin} from '../encode/format-plugin.js'
import {formatSource} from '../encode/format-registry.js'
import type {RenderPlan} from '../plan/render-plan.js'
import {packageRoot} from '../sandbox/package-root.js'

/** Raised when what a key covers changes shape, so that older entries are never hit again. */
const KEY_VERSION = 1

/**
 * The programs that turn a plan into bytes, as this machine has them: another build of any of
 * them may draw or encode differently, so it is another key.
 */
export interface Toolchain {
  engine: string
  /** sha256 of the in-page runtime bundle (a development build changes it without a new version). */
  runtime: string
  browser: {version: string; source: string; beginFrame: boolean; gpu: boolean}
  ffmpeg: string
  /** The output format: its name, who registered it (a plugin) and its methods' source. */
  format: {name: string; source: string; code: string}
}

let engineVersion: string | undefined
let runtimeHash: Promise<string> | undefined
/** Each format's methods hashed once per process: a batch asks for the key of every row. */
const pluginCodes = new WeakMap<FormatPlugin, string>()

export async function toolchainOf(browser: BrowserChoice, ffmpeg: {ffmpegPath: string; version: string}, format: FormatPlugin): Promise<Toolchain> {
  engineVersion ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {version: string}).version
  runtimeHash ??= loadRuntimeBundle().then(sha256)
  let code = pluginCodes.get(format)
  if (code === undefined) pluginCodes.set(format, (code = pluginCode(format)))
  return {
    engine: engineVersion,
    runtime: await runtimeHash,
    // An unprobed browser is known only by where it is: its path stands in for its build.
    browser: {version: browser.version ?? `unprobed ${browser.executablePath}`, source: browser.source, beginFrame: browser.beginFrame, gpu: browser.gpu},
    ffmpeg: `${ffmpeg.version} ${ffmpeg.ffmpegPath}`,
    format: {name: format.name, source: formatSource(format.name) ?? 'unregistered', code},
  }
}

/**
 * What decides an output's bytes: the finished plan (composition files, resolved variables, every
 * output setting, probed media), the toolchain, and what the render adds beside the plan (`extra`:
 * a poster frame, a still's frame and image format). Not in it: the output path, worker counts,
 * row data (never in the plan), and the two parts of a plan that only say where things are on this
 * machine: the project's folder and the source files page errors are mapped back to.
 */
export function renderCacheKey(parts: {kind: 'render' | 'still'; plan: Readonly<RenderPlan>; toolchain: Toolchain; extra: Record<string, unknown>}): string {
  const {projectDir: _projectDir, scriptLines: _scriptLines, ...plan} = parts.plan
  // The plan as JSON, like planHash: it is built the same way everywhere, so its key order is fixed,
  // and sorting its keys (the page and its fonts inlined) would cost a batch row several ms.
  return createHash('sha256')
    .update(canonicalJson({version: KEY_VERSION, kind: parts.kind, toolchain: parts.toolchain, extra: parts.extra}))
    .update('\n')
    .update(JSON.stringify(plan))
    .digest('hex')
}

function pluginCode(format: FormatPlugin): string {
  const methods = Object.entries(format)
    .filter(([, value]) => typeof value === 'function')
    .map(([name, value]) => `${name}:${String(value)}`)
    .sort()
  return sha256(methods.join('\n'))
}

/** JSON with object keys sorted, so that the same parts always hash the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  )
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
