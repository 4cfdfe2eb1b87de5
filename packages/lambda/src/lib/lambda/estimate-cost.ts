/** Lambda on x86_64, per GB-second (memory/1024 x billed seconds). */
export const LAMBDA_USD_PER_GB_SECOND = 0.0000166667
/** Lambda requests: 0.20 USD per million invocations. */
export const LAMBDA_USD_PER_REQUEST = 0.0000002
/** Ephemeral storage above the free 512 MB, per GB-second. */
export const EPHEMERAL_USD_PER_GB_SECOND = 0.0000000309
const FREE_EPHEMERAL_MB = 512
/** What `lambda deploy` gives the function (EPHEMERAL_STORAGE_MB); the records do not carry it. */
const DEPLOYED_EPHEMERAL_MB = 10240
/** Standard workflows, per state transition. */
export const STATE_TRANSITION_USD = 0.000025

export interface CostEstimate {
  /** Lambda compute, requests and ephemeral storage plus state transitions, in US dollars; S3 not included. */
  usd: number
  lambdaGbSeconds: number
  requests: number
  /** Billed storage beyond the free 512 MB, in GB-seconds. */
  ephemeralGbSeconds: number
  stateTransitions: number
}

/** Invocation durations are billed per started millisecond (us-east-1 prices). */
export function estimateCost(invocations: readonly {durationMs: number; memoryMb: number}[], stateTransitions: number, ephemeralStorageMb = DEPLOYED_EPHEMERAL_MB): CostEstimate {
  const seconds = invocations.map(({durationMs}) => Math.ceil(durationMs) / 1000)
  const lambdaGbSeconds = invocations.reduce((sum, {memoryMb}, index) => sum + seconds[index] * (memoryMb / 1024), 0)
  const ephemeralGbSeconds = seconds.reduce((sum, value) => sum + value, 0) * (Math.max(ephemeralStorageMb - FREE_EPHEMERAL_MB, 0) / 1024)
  const usd =
    lambdaGbSeconds * LAMBDA_USD_PER_GB_SECOND +
    invocations.length * LAMBDA_USD_PER_REQUEST +
    ephemeralGbSeconds * EPHEMERAL_USD_PER_GB_SECOND +
    stateTransitions * STATE_TRANSITION_USD
  const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits
  return {usd: round(usd, 6), lambdaGbSeconds: round(lambdaGbSeconds, 3), requests: invocations.length, ephemeralGbSeconds: round(ephemeralGbSeconds, 3), stateTransitions}
}
