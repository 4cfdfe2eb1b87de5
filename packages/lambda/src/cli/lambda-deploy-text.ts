import type {DeployedStack} from '../lib/lambda/deploy/deploy-stack.js'
import {BUCKET_ENV, STATE_MACHINE_ENV} from '../lib/lambda/aws-clients.js'
import type {SmokeTestResult} from '../lib/lambda/smoke-test.js'

/** What `lambda deploy --json` prints: the stack a script needs next, and the smoke test's render when one ran. */
export interface DeployReport {
  functionVersion: string
  previousVersion: string | null
  memoryMb: number
  reservedConcurrency: number | null
  bucketName: string
  stateMachineArn: string
  batchStateMachineArn: string
  /** The variables the other `engine lambda` commands read. */
  env: Record<string, string>
  smokeTest?: {renderId: string; seconds: number; url: string; estimatedUsd: number}
}

export function deployReport(deployed: DeployedStack, smoke?: SmokeTestResult): DeployReport {
  const {RenderBucketName, RenderStateMachineArn, BatchStateMachineArn} = deployed.resources.outputs
  return {
    functionVersion: deployed.version,
    previousVersion: deployed.previousVersion ?? null,
    memoryMb: deployed.memoryMb,
    reservedConcurrency: deployed.reservedConcurrency ?? null,
    bucketName: RenderBucketName,
    stateMachineArn: RenderStateMachineArn,
    batchStateMachineArn: BatchStateMachineArn,
    env: {[BUCKET_ENV]: RenderBucketName, [STATE_MACHINE_ENV]: RenderStateMachineArn},
    ...(smoke && {
      smokeTest: {renderId: smoke.renderId, seconds: smoke.seconds, url: smoke.progress.output.https?.url ?? smoke.progress.output.url, estimatedUsd: smoke.progress.cost.usd},
    }),
  }
}

/** The lines people read (and scripts grep: NAME=value to export), printed before any smoke test. */
export function deployText(report: DeployReport): string[] {
  const was = report.previousVersion === null ? 'first deploy' : report.previousVersion === report.functionVersion ? 'unchanged' : `was ${report.previousVersion}`
  return [
    `FunctionVersion: ${report.functionVersion} (${was}); ${report.memoryMb} MB, ${report.reservedConcurrency === null ? 'shared concurrency pool' : `${report.reservedConcurrency} reserved`}`,
    `RenderBucketName: ${report.bucketName}`,
    `RenderStateMachineArn: ${report.stateMachineArn}`,
    ...Object.entries(report.env).map(([name, value]) => `${name}=${value}`),
  ]
}

export function smokeTestText(smoke: NonNullable<DeployReport['smokeTest']>): string {
  return `Smoke test: render ${smoke.renderId} succeeded in ${smoke.seconds.toFixed(1)} s (${smoke.url}, estimated $${smoke.estimatedUsd.toFixed(6)})`
}
