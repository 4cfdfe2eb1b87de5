import {describe, expect, it} from 'vitest'
import {estimateCost} from '../../packages/lambda/src/lib/lambda/estimate-cost.js'

describe('serverless cost estimate', () => {
  it('adds compute, requests, ephemeral storage above 512 MB and state transitions', () => {
    // One second at 10240 MB: 10 GB-s, one request, 9.5 GB of /tmp for one second, 2 transitions.
    const cost = estimateCost([{durationMs: 999.2, memoryMb: 10240}], 2)
    expect(cost).toEqual({usd: 0.000217, lambdaGbSeconds: 10, requests: 1, ephemeralGbSeconds: 9.5, stateTransitions: 2})
    expect(estimateCost([{durationMs: 1000, memoryMb: 2048}], 0, 512)).toMatchObject({lambdaGbSeconds: 2, ephemeralGbSeconds: 0})
    expect(estimateCost([], 0)).toEqual({usd: 0, lambdaGbSeconds: 0, requests: 0, ephemeralGbSeconds: 0, stateTransitions: 0})
  })
})
