import {Flags} from '@oclif/core'
import {createInterface} from 'node:readline/promises'
import {EngineError} from '../lib/errors/engine-error.js'
import {AUTO_INSTALL_ENV, installConsent} from '../lib/setup/install-consent.js'
import {findMissingTools, type FindMissingToolsOptions, type MissingTool} from '../lib/setup/missing-tools.js'
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
export async function installMissingTools(options: InstallMissingToolsOptions): Promise<MissingTool[]> {
  const env = options.env ?? process.env
  const missing = await findMissingTools(options)
  if (missing.length === 0) return []
  const impossible = missing.find((tool) => !tool.download)
  if (impossible) throw impossible.problem

  const stderr = process.stderr
  const consent = options.requested
    ? ({decision: 'install'} as const)
    : installConsent({yes: options.yes, env, interactive: process.stdin.isTTY === true && stderr.isTTY === true})
  if (consent.decision === 'refuse') {
    const first = missing[0].problem
    throw new EngineError(first.code, `${missing.map((tool) => tool.problem.message).join('; and ')} (not downloaded: ${consent.reason})`, first.details)
  }
  stderr.write(`engine needs to download ${missing.length === 1 ? 'one thing' : `${missing.length} things`} to render on this machine:\n`)
  for (const {download} of missing) stderr.write(`  - ${download!.what}\n    from ${download!.from}\n    into ${download!.into}\n`)
  if (consent.decision === 'ask' && !(await confirm('Download now? [Y/n] '))) {
    throw new EngineError(missing[0].problem.code, `nothing was downloaded. ${missing.map((tool) => tool.problem.message).join('; and ')}`, missing[0].problem.details)
  }
  const progress = downloadProgress(stderr)
  try {
    const notice = (message: string) => {
      progress.end()
      stderr.write(`warning: ${message}\n`)
    }
    for (const {download} of missing) await download!.run(progress.update, notice)
  } finally {
    progress.end()
  }
  stderr.write(`downloaded: ${missing.map((tool) => tool.tool).join(' and ')} (${missing.map((tool) => tool.download!.into).join(', ')})\n`)
  return missing
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
