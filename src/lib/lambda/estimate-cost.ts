/** Lambda on x86_64, per GB-second (memory/1024 x billed seconds). */
export const LAMBDA_USD_PER_GB_SECOND = 0.0000166667
/** Standard workflows, per state transition. */
export const STATE_TRANSITION_USD = 0.000025

export interface CostEstimate {
  /** Lambda compute plus state transitions, in US dollars; S3 requests and storage not included. */
  usd: number
  lambdaGbSeconds: number
  stateTransitions: number
}

/** Invocation durations are billed per started millisecond. */
export function estimateCost(invocations: readonly {durationMs: number; memoryMb: number}[], stateTransitions: number): CostEstimate {
  const lambdaGbSeconds = invocations.reduce((sum, {durationMs, memoryMb}) => sum + (Math.ceil(durationMs) / 1000) * (memoryMb / 1024), 0)
  const usd = lambdaGbSeconds * LAMBDA_USD_PER_GB_SECOND + stateTransitions * STATE_TRANSITION_USD
  return {usd: Math.round(usd * 1e6) / 1e6, lambdaGbSeconds: Math.round(lambdaGbSeconds * 1000) / 1000, stateTransitions}
}
