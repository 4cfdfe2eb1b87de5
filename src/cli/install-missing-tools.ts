import {Flags} from '@oclif/core'
import {createInterface} from 'node:readline/promises'
import {EngineError, toEngineError} from '../lib/errors/engine-error.js'
import {AUTO_INSTALL_ENV, installConsent} from '../lib/setup/install-consent.js'
import {findMissingTools, type FindMissingToolsOptions, type MissingTool, type ToolProgress} from '../lib/setup/missing-tools.js'
import {downloadProgress} from './download-progress.js'

/** `--yes`, on the commands that render: download what is missing without asking. */
export const yesFlag = {
  yes: Flags.boolean({
    char: 'y',
    description: `download what this machine lacks to render (the pinned headless browser, a static ffmpeg) without asking; also ${AUTO_INSTALL_ENV}=1`,
  }),
}

export interface InstallMissingToolsOptions extends FindMissingToolsOptions {
  /** `--yes`. */
  yes?: boolean
  /** `doctor --fix` and the like: the command itself is the request to install. */
  requested?: boolean
}

/**
 * Before a render: finds the browser and ffmpeg the render needs, and when one is missing says
 * what would be downloaded, from where and into which folder, then downloads it with a progress
 * bar, if allowed (see installConsent). Always on stderr, even with --quiet or --json: a
 * download never happens silently. Returns what it installed.
 */
export async function installMissingTools(options: InstallMissingToolsOptions): Promise<ToolOutcome[]> {
  const env = options.env ?? process.env
  const missing = await findMissingTools(options)
  if (missing.length === 0) return []
  const impossible = missing.find((tool) => !tool.download)
  if (impossible && !options.requested) throw impossible.problem

  const stderr = process.stderr
  const consent = options.requested
    ? ({decision: 'install'} as const)
    : installConsent({yes: options.yes, env, interactive: process.stdin.isTTY === true && stderr.isTTY === true})
  if (consent.decision === 'refuse') {
    const first = missing[0].problem
    throw new EngineError(first.code, `${missing.map((tool) => tool.problem.message).join('; and ')} (not downloaded: ${consent.reason})`, first.details)
  }
  const downloadable = missing.filter((tool) => tool.download)
  if (downloadable.length > 0) {
    stderr.write(`engine needs to download ${downloadable.length === 1 ? 'one thing' : `${downloadable.length} things`} to render on this machine:\n`)
    for (const {download} of downloadable) stderr.write(`  - ${download!.what}\n    from ${download!.from}\n    into ${download!.into}\n`)
  }
  if (consent.decision === 'ask' && !(await confirm('Download now? [Y/n] '))) {
    throw new EngineError(missing[0].problem.code, `nothing was downloaded. ${missing.map((tool) => tool.problem.message).join('; and ')}`, missing[0].problem.details)
  }
  const outcomes = options.requested ? await downloadEach(missing) : await downloadAll(downloadable)
  const installed = outcomes.flatMap((outcome) => (outcome.installed ? [`${outcome.installed} (into ${outcome.into})`] : []))
  if (installed.length > 0) stderr.write(`downloaded: ${installed.join('; ')}\n`)
  return outcomes
}

/** What became of one missing tool: what was installed, or why it was not. */
export interface ToolOutcome {
  tool: MissingTool['tool']
  installed?: string
  into?: string
  problem?: EngineError
}

/** Before a render: every download must succeed, and the first that fails stops the render. */
async function downloadAll(missing: MissingTool[]): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = []
  await withProgress(async (update, notice) => {
    for (const {tool, download} of missing) outcomes.push({tool, installed: await download!.run(update, notice), into: download!.into})
  })
  return outcomes
}

/**
 * `doctor --fix`: each part on its own, so that a browser that cannot be had does not keep ffmpeg
 * from being fetched; each failure is said with its reason, and the report that follows shows
 * what is still missing.
 */
async function downloadEach(missing: MissingTool[]): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = []
  for (const {tool, download, problem} of missing) {
    if (!download) {
      process.stderr.write(`not fixed: ${tool}: nothing to download for this platform (${problem.message})\n`)
      outcomes.push({tool, problem})
      continue
    }
    try {
      await withProgress(async (update, notice) => {
        outcomes.push({tool, installed: await download.run(update, notice), into: download.into})
      })
    } catch (error) {
      const failed = toEngineError(error)
      process.stderr.write(`not fixed: ${tool}: ${failed.message}\n`)
      outcomes.push({tool, problem: failed})
    }
  }
  return outcomes
}

async function withProgress(work: (update: ToolProgress, notice: (message: string) => void) => Promise<void>): Promise<void> {
  const progress = downloadProgress(process.stderr)
  try {
    await work(progress.update, (message) => {
      progress.end()
      process.stderr.write(`warning: ${message}\n`)
    })
  } finally {
    progress.end()
  }
}

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({input: process.stdin, output: process.stderr})
  try {
    const answer = (await prompt.question(question)).trim().toLowerCase()
    return answer === '' || answer === 'y' || answer === 'yes'
  } finally {
    prompt.close()
  }
}
