import {EngineError} from '../lib/errors/engine-error.js'
import type {ResolvedRenderOptions} from '../lib/plan/render-options.js'
import {checkTextFit, type TextCheckRequest} from '../lib/render/check-text-fit.js'
import {findingWarning, textOverflowError} from '../lib/render/text-findings.js'
import {writeWarning} from './render-progress.js'

/**
 * The check pass of a single render (only with `--on-overflow` or `--check-only`): findings are
 * warnings, or with `--on-overflow fail` a TEXT_OVERFLOW error before anything renders. Resolves
 * with whether the render should go on (not under `--check-only`).
 */
export async function checkSingleRender(request: TextCheckRequest, onServer = false): Promise<boolean> {
  const {options} = request
  if (options.onOverflow === undefined && !options.checkOnly) return true
  if (options.onOverflow === 'skip') {
    throw new EngineError('INVALID_FLAG', '--on-overflow skip only applies to a batch (it skips rows): use warn or fail for a single render, or add --batch <rows.csv>')
  }
  if (onServer) throw new EngineError('INVALID_FLAG', '--on-overflow and --check-only run on this machine: drop --server, or them')
  const {findings, frames} = await checkTextFit(request)
  if (findings.length > 0 && options.onOverflow === 'fail') throw textOverflowError(findings)
  for (const finding of findings) report(options, findingWarning(finding))
  if (options.checkOnly) {
    const line = `checked ${frames.length} frames: ${findings.length === 0 ? 'all text fits' : `${findings.length} text-overflow finding${findings.length === 1 ? '' : 's'}`}; nothing rendered (--check-only)`
    if (options.json) process.stdout.write(JSON.stringify({type: 'check-done', frames: frames.length, findings}) + '\n')
    else process.stderr.write(line + '\n')
  }
  return !options.checkOnly
}

function report(options: Pick<ResolvedRenderOptions, 'json'>, warning: ReturnType<typeof findingWarning>): void {
  if (options.json) process.stdout.write(JSON.stringify({type: 'warning', ...warning}) + '\n')
  else writeWarning(warning)
}
