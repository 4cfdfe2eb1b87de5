import type {EngineError} from '../lib/errors/engine-error.js'
import {signalExitCode} from './base-command.js'

/** How long an interrupted command may take to stop its browsers and encoders before it exits anyway. */
const CANCEL_GRACE_MS = 20_000

/**
 * After Ctrl-C a render aborts, closes its browsers and encoders and removes its partial files,
 * which takes about a second. Should that clean-up hang (a browser that no longer answers), the
 * process still ends, with the same error and status, once the grace has passed: the person who
 * pressed Ctrl-C gets the terminal back. The timer does not keep the process alive.
 */
export function exitAfterCancelGrace(error: EngineError, json: boolean): void {
  setTimeout(() => {
    if (json) process.stdout.write(JSON.stringify({type: 'error', error: error.toJSON()}) + '\n')
    else process.stderr.write(`error [${error.code}]: ${error.message} (its clean-up did not finish within ${CANCEL_GRACE_MS / 1000} s)\n`)
    process.exit(signalExitCode(error))
  }, CANCEL_GRACE_MS).unref()
}
