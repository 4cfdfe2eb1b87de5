import {EngineError, type ErrorCode} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {awsFailure} from '../aws-errors.js'

/**
 * What one deploy created and changed, in order, so that a deploy that fails halfway says exactly
 * what it left: everything deploy makes is reused by the next run, so running it again finishes.
 */
export class DeployLedger {
  private readonly made: string[] = []
  private readonly altered: string[] = []
  private step = 'checking the account'

  at(step: string): void {
    this.step = step
  }

  created(what: string): void {
    this.made.push(what)
  }

  changed(what: string): void {
    this.altered.push(what)
  }

  /** The failure with what was left: created, changed, or nothing at all. */
  failure(error: unknown, context: {bucketName?: string; endpoint?: string}): EngineError {
    const cause = awsFailure(error, `deploying the serverless stack (${this.step})`, context)
    const left =
      this.made.length === 0 && this.altered.length === 0
        ? 'Nothing was created or changed.'
        : [
            this.made.length > 0 && `This deploy created ${this.made.join(', ')}`,
            this.altered.length > 0 && `changed ${this.altered.join(', ')}`,
          ]
            .filter(Boolean)
            .join('; and ') + '. Deploy again to finish: it reuses all of it.'
    const code: ErrorCode = cause.code === 'INTERNAL' ? 'DEPLOY_FAILED' : cause.code
    return new EngineError(code, `${cause.message}. ${left}`, {...(cause.details as object), step: this.step, created: this.made, changed: this.altered}, {cause: error})
  }
}
