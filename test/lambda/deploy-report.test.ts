import {describe, expect, it} from 'vitest'
import {deployReport, deployText, smokeTestText} from '../../packages/lambda/src/cli/lambda-deploy-text.js'
import type {DeployedStack} from '../../packages/lambda/src/lib/lambda/deploy/deploy-stack.js'
import type {SmokeTestResult} from '../../packages/lambda/src/lib/lambda/smoke-test.js'

const deployed = (previousVersion?: string, reservedConcurrency?: number) =>
  ({
    resources: {outputs: {RenderBucketName: 'engine-render-123-eu-west-1', RenderStateMachineArn: 'arn:aws:states:eu-west-1:123:stateMachine:engine-render', BatchStateMachineArn: 'arn:aws:states:eu-west-1:123:stateMachine:engine-render-batch'}},
    version: '4',
    previousVersion,
    memoryMb: 3008,
    reservedConcurrency,
  }) as unknown as DeployedStack

describe('lambda deploy: what it prints', () => {
  it('--json: one object with the stack, the variables to export and the smoke test', () => {
    const smoke = {renderId: 'mwxo2tdm-30b93e6daf', siteId: 's', seconds: 12.34, progress: {output: {url: 's3://b/out.mp4', https: {url: 'https://b/out.mp4?X-Amz-Signature=x'}}, cost: {usd: 0.000123}}} as unknown as SmokeTestResult
    const report = deployReport(deployed('3'), smoke)
    expect(JSON.parse(JSON.stringify(report))).toEqual({
      functionVersion: '4',
      previousVersion: '3',
      memoryMb: 3008,
      reservedConcurrency: null,
      bucketName: 'engine-render-123-eu-west-1',
      stateMachineArn: 'arn:aws:states:eu-west-1:123:stateMachine:engine-render',
      batchStateMachineArn: 'arn:aws:states:eu-west-1:123:stateMachine:engine-render-batch',
      env: {ENGINE_BUCKET: 'engine-render-123-eu-west-1', ENGINE_SFN_ARN: 'arn:aws:states:eu-west-1:123:stateMachine:engine-render'},
      smokeTest: {renderId: 'mwxo2tdm-30b93e6daf', seconds: 12.34, url: 'https://b/out.mp4?X-Amz-Signature=x', estimatedUsd: 0.000123},
    })
    expect(smokeTestText(report.smokeTest!)).toBe('Smoke test: render mwxo2tdm-30b93e6daf succeeded in 12.3 s (https://b/out.mp4?X-Amz-Signature=x, estimated $0.000123)')
  })

  it('the lines people read, with NAME=value lines to export', () => {
    expect(deployText(deployReport(deployed(undefined, 20)))).toEqual([
      'FunctionVersion: 4 (first deploy); 3008 MB, 20 reserved',
      'RenderBucketName: engine-render-123-eu-west-1',
      'RenderStateMachineArn: arn:aws:states:eu-west-1:123:stateMachine:engine-render',
      'ENGINE_BUCKET=engine-render-123-eu-west-1',
      'ENGINE_SFN_ARN=arn:aws:states:eu-west-1:123:stateMachine:engine-render',
    ])
    expect(deployText(deployReport(deployed('4')))[0]).toBe('FunctionVersion: 4 (unchanged); 3008 MB, shared concurrency pool')
  })
})
