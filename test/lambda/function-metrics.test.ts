import {afterEach, describe, expect, it, vi} from 'vitest'
import {handler} from '../../packages/lambda/src/lib/lambda/handler.js'
import {failureMetricLine} from '../../packages/lambda/src/lib/lambda/function-metrics.js'
import {overrideEnv} from '../support/override-env.js'

describe('the function counts composition errors apart from faults (the function-faults alarm leaves them out)', () => {
  let restore: (() => void) | undefined
  afterEach(() => {
    restore?.()
    vi.restoreAllMocks()
  })

  it('on Lambda, a request the function cannot handle logs one CloudWatch EMF line counting CompositionErrors for the function', async () => {
    restore = overrideEnv({AWS_LAMBDA_FUNCTION_NAME: 'videos'})
    const logged: string[] = []
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logged.push(String(line)))
    await expect(handler({action: 'nonsense'})).rejects.toThrow()
    const lines = logged.map((line) => JSON.parse(line) as Record<string, any>)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({FunctionName: 'videos', ErrorCode: 'INVALID_REQUEST', CompositionErrors: 1})
    expect(lines[0]._aws.CloudWatchMetrics).toEqual([{Namespace: 'engine', Dimensions: [['FunctionName']], Metrics: [{Name: 'CompositionErrors', Unit: 'Count'}]}])
  })

  it('off Lambda nothing is logged; a fault counts in no engine metric, a cancelled chunk as a stop', async () => {
    const saved = process.env.AWS_LAMBDA_FUNCTION_NAME
    delete process.env.AWS_LAMBDA_FUNCTION_NAME
    restore = () => saved !== undefined && (process.env.AWS_LAMBDA_FUNCTION_NAME = saved)
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    await expect(handler({action: 'nonsense'})).rejects.toThrow()
    expect(log).not.toHaveBeenCalled()
    expect(failureMetricLine('videos', 'INTERNAL')).toBeUndefined()
    expect(failureMetricLine('videos', 'ENCODE_FAILED')).toBeUndefined()
    expect(JSON.parse(failureMetricLine('videos', 'CANCELLED')!)).toMatchObject({StoppedInvocations: 1})
    expect(JSON.parse(failureMetricLine('videos', 'PAGE_ERROR')!)).toMatchObject({CompositionErrors: 1})
  })
})
