import {Command, Flags} from '@oclif/core'
import {constants} from 'node:os'
import {EngineError, isEngineError, toEngineError} from '../lib/errors/engine-error.js'
import {sweepTempDirectories} from '../lib/files/temp-directory.js'
import {debug, LOG_LEVELS, warn as warnLine} from './log.js'
import {usageError} from './usage-error.js'
import {terminalText} from './terminal-text.js'

/** Conventional exit status of a command stopped by a signal: 128 + its number (Ctrl-C: 130). */
export function signalExitCode(error: EngineError): number {
  const signal = (error.details as {signal?: unknown} | undefined)?.signal
  const number = typeof signal === 'string' ? constants.signals[signal as NodeJS.Signals] : undefined
  return 128 + (number ?? constants.signals.SIGINT)
}

/**
 * Presents every failure the same way, once: `error [CODE]: message` for people, or one JSON
 * object `{type:"error", error:{code,message,details}}` with --json (usage errors from parsing
 * included), and a non-zero exit: 2 for a command line of the wrong shape (unknown flag, missing
 * argument, a batch started over an earlier one's manifest without --resume or --restart), 128 +
 * signal for an interrupted command, else 1.
 */
export abstract class BaseCommand extends Command {
  // Read from the command line before oclif starts (see log.ts): plugin hooks log before any parse.
  static override baseFlags = {
    'log-level': Flags.option({options: LOG_LEVELS, description: 'diagnostics on stderr: error, warn, info (default) or debug (env ENGINE_LOG_LEVEL)', helpGroup: 'GLOBAL'})(),
    verbose: Flags.boolean({description: 'the same as --log-level debug', helpGroup: 'GLOBAL'}),
  }

  override async init(): Promise<void> {
    await super.init()
    // Temporary directories of engine processes that were killed: swept in the background, never
    // one whose process still runs (see sweepTempDirectories); nothing waits for it.
    void sweepTempDirectories().catch(() => {})
  }

  /** Warnings go through the log level (`--log-level error` leaves them out), in one style. */
  override warn(input: string | Error): string | Error {
    warnLine(typeof input === 'string' ? input : input.message)
    return input
  }

  protected jsonOutput(): boolean {
    return this.argv.includes('--json')
  }

  protected override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    // oclif's own exits (this.exit) keep their behaviour.
    if (error.name === 'ExitError' || (error as {code?: string}).code === 'EEXIT') return super.catch(error)
    const usage = usageError(error, this.id ?? '', Object.keys(this.ctor.flags ?? {}))
    const engineError = usage?.error ?? toEngineError(error)
    if (this.jsonOutput()) {
      process.stdout.write(JSON.stringify({type: 'error', error: engineError.toJSON()}) + '\n')
    } else {
      process.stderr.write(terminalText(`error [${engineError.code}]: ${engineError.message}`) + '\n')
      if (engineError.details !== undefined) debug(`details: ${JSON.stringify(engineError.details, null, 2)}`)
      if (error.stack) debug(error.stack)
    }
    process.exitCode = usage ? usage.exitCode : isEngineError(engineError, 'CANCELLED') ? signalExitCode(engineError) : isEngineError(engineError, 'BATCH_EXISTS') ? 2 : 1
    return undefined
  }
}
