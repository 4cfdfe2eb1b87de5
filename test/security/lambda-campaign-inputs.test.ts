import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {deliverBatchWebhook} from '../../packages/lambda/src/lib/lambda/batch/batch-webhook.js'
import {lambdaResultRow} from '../../packages/lambda/src/lib/lambda/batch/batch-results.js'
import {checkLambdaWebhook} from '../../packages/lambda/src/lib/lambda/lambda-webhook.js'
import {writeResultSheet} from '../../src/lib/batch/results/result-sheet.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {renderPayload} from '../../src/lib/notify/index.js'
import {startReceiver, type Receiver} from '../notify/receiver.js'
import {runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'
import {LAMBDA_FIXTURES} from '../lambda/support.js'

const refusal = (url: string, endpoint?: string, data?: Record<string, unknown>) => {
  try {
    checkLambdaWebhook({url, secret: 's3cret', ...(data && {data})}, endpoint)
  } catch (error) {
    if (isEngineError(error, 'INVALID_REQUEST')) return error.message
    throw error
  }
  return 'accepted'
}

describe('hostile inputs of a serverless campaign: webhook addresses, webhook data, row data in the sheet', PROCESSES, () => {
  const scratch = useScratchDir('engine-lambda-campaign-inputs-')
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver('s3cret')
  })
  afterAll(() => receiver?.close())

  it('in AWS the function calls only public addresses: loopback, private, link-local (instance metadata) and IPv6 loopback are refused at the door, naming the field and why', () => {
    for (const url of ['http://127.0.0.1:9001/2018-06-01/runtime/invocation/next', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/hook', 'http://localhost/hook', 'http://[::ffff:127.0.0.1]/hook']) {
      expect(refusal(url), url).toMatch(/^webhook\.url: http:\/\/\S+ is refused: .*(is not a public address|is this machine)\. The serverless function makes the call from AWS/)
    }
    // An endpoint that is not this machine (AWS, or any remote S3-compatible store) is no local stack.
    expect(refusal('http://127.0.0.1/hook', 'https://s3.eu-west-1.amazonaws.com')).toMatch(/is refused/)
    expect(refusal('https://hooks.example.com/render')).toBe('accepted')
    // On the local stack the function runs on this machine: a receiver here is the user's choice.
    expect(refusal('http://127.0.0.1:8787/hook', 'http://127.0.0.1:4566')).toBe('accepted')
    expect(refusal('ftp://example.com/hook')).toMatch(/^webhook\.url: "ftp:\/\/example\.com\/hook" must be an http:\/\/ or https:\/\/ URL/)
    expect(refusal('https://hooks.example.com/render', undefined, {blob: 'x'.repeat(5000)})).toMatch(/^webhook\.data: is 5,011 bytes; at most 4,096/)
  })

  it('the function refuses a private address again when it calls (an SDK caller that skipped the door): nothing is sent, the refusal is recorded', async () => {
    const previous = process.env.ENGINE_AWS_ENDPOINT
    delete process.env.ENGINE_AWS_ENDPOINT
    try {
      const delivery = await deliverBatchWebhook({url: receiver.url, secret: 's3cret'}, renderPayload({id: 'b-r1-0', row: {index: 0, data: {}}}))
      expect(delivery).toMatchObject({delivered: false, attempts: 0, error: 'refused: 127.0.0.1 is not a public address'})
      expect(receiver.calls).toHaveLength(0)
    } finally {
      if (previous !== undefined) process.env.ENGINE_AWS_ENDPOINT = previous
    }
  })

  it('engine lambda render-batch refuses such a --webhook and --webhook-data over 4 KB before anything is read or uploaded', async () => {
    const rows = join(scratch(), 'rows.csv')
    await writeFile(rows, 'name\nAda\n')
    const base = ['lambda', 'render-batch', join(LAMBDA_FIXTURES, 'campaign'), '--batch', rows, '--dry-run', '--webhook-secret', 's3cret']
    const env = {ENGINE_AWS_ENDPOINT: ''}
    const metadata = await runCli([...base, '--webhook', 'http://169.254.169.254/latest/meta-data/'], {env})
    expect(metadata.code).toBe(1)
    expect(metadata.stderr).toMatch(/^error \[INVALID_FLAG\]: --webhook: http:\/\/169\.254\.169\.254\/latest\/meta-data\/ is refused: 169\.254\.169\.254 is not a public address\. The serverless function makes the call from AWS/m)
    const data = await runCli([...base, '--webhook', 'https://hooks.example.com/render', '--webhook-data', JSON.stringify({blob: 'x'.repeat(5000)})], {env})
    expect(data.code).toBe(1)
    expect(data.stderr).toMatch(/--webhook-data: is 5,011 bytes; at most 4,096 bytes of JSON are echoed/)
  })

  it('row data and columns that a spreadsheet would run are text in the Lambda result sheet; an error message cannot break out of its cell', async () => {
    const path = join(scratch(), 'results.csv')
    const columns = {name: '=cmd|"/c calc"!A1', id: '+1', note: '@SUM(1)', tab: '\tx', plain: 'Ada'}
    const row = {index: 0, run: 1, renderId: 'b-r1-0', outputKey: 'out/=x.mp4', status: 'failed' as const, error: {code: 'ENCODE_FAILED' as const, message: '-bad\n"quoted", here'}}
    await writeResultSheet(path, Object.keys(columns), [lambdaResultRow({index: 0, columns, data: {}}, row, 'bucket')])
    const [header, line] = (await readFile(path, 'utf8')).trimEnd().split('\n')
    expect(header).toBe('name,id,note,tab,plain,status,output,sha256,bytes,duration_seconds,frames,poster,render_ms,warnings,error_code,error_message')
    expect((await readFile(path, 'utf8')).split('\n').slice(1).join('\n')).toBe(`"'=cmd|""/c calc""!A1",'+1,'@SUM(1),'\tx,Ada,failed,s3://bucket/out/=x.mp4,,,,,,,,ENCODE_FAILED,"'-bad\n""quoted"", here"\n`)
    expect(line).toMatch(/^"'=cmd/)
  })
})
