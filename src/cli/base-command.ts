import {Command} from '@oclif/core'
import {EngineError, toEngineError} from '../lib/errors/engine-error.js'

/**
 * Presents every failure the same way: `error [CODE]: message` for people, or one JSON object
 * `{type:"error", error:{code,message,details}}` with --json, and a non-zero exit.
 */
export abstract class BaseCommand extends Command {
  protected jsonOutput(): boolean {
    return this.argv.includes('--json')
  }

  protected override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    // oclif's own exits (this.exit, parse errors) keep their behaviour.
    if (error.oclif?.exit !== undefined && !(error instanceof EngineError)) return super.catch(error)
    if (error.name === 'ExitError' || (error as {code?: string}).code === 'EEXIT') return super.catch(error)
    const engineError = toEngineError(error)
    if (this.jsonOutput()) {
      process.stdout.write(JSON.stringify({type: 'error', error: engineError.toJSON()}) + '\n')
    } else {
      process.stderr.write(`error [${engineError.code}]: ${engineError.message}\n`)
    }
    process.exitCode = 1
    return undefined
  }
}
