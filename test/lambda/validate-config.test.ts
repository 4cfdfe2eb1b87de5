import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {deploySite, renderToLambda} from '../../packages/lambda/src/lib/lambda/index.js'
import {MAX_EXECUTION_INPUT_BYTES, validateConfig} from '../../packages/lambda/src/lib/lambda/validate-config.js'

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:engine-render'

describe('SDK config check (before any cloud call)', () => {
  let server: Server
  let requests = 0
  let endpoint: string
  beforeAll(async () => {
    // Stands in for S3 and Step Functions: it only counts what reaches it.
    server = createServer((request, response) => {
      requests++
      response.writeHead(500).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const start = (config: Record<string, unknown>) =>
    renderToLambda({
      siteHandle: {siteId: 'c27eaf1e0e0583384fc7b72a'},
      bucketName: 'engine-renders',
      stateMachineArn: STATE_MACHINE_ARN,
      config,
      outputKey: 'out/big.mp4',
      endpoint,
    })

  it('a 300 KB config is refused with the byte count, the limit and the fix, and no request is made', async () => {
    const config = {fps: 30, width: 320, height: 180, format: 'mp4', variables: {image: 'data:image/png;base64,' + 'A'.repeat(300_000)}}
    const error = await start(config).catch((caught: Error) => caught)
    expect(error).toBeInstanceOf(Error)
    const message = (error as Error).message
    expect(message.startsWith('[validateConfig] config:')).toBe(true)
    const bytes = Number(/(\d+) bytes/.exec(message)![1])
    expect(bytes).toBeGreaterThan(300_000)
    expect(message).toContain('262144')
    expect(message).toMatch(/pass media as URLs/)
    expect((error as {code?: string}).code).toBe('PAYLOAD_TOO_LARGE')
    expect(requests).toBe(0)
  })

  it('the limit is on the whole serialized execution input', () => {
    const input = {renderId: 'r', bucketName: 'bucket', siteId: 's', entry: 'index.html', outputKey: 'o.mp4', config: {variables: {}}}
    const overhead = Buffer.byteLength(JSON.stringify({...input, config: {variables: {v: ''}}}))
    const fits = {...input, config: {variables: {v: 'x'.repeat(MAX_EXECUTION_INPUT_BYTES - overhead)}}}
    expect(() => validateConfig(fits)).not.toThrow()
    const over = {...input, config: {variables: {v: 'x'.repeat(MAX_EXECUTION_INPUT_BYTES - overhead + 1)}}}
    expect(() => validateConfig(over)).toThrow(`[validateConfig] config: the workflow execution input is ${MAX_EXECUTION_INPUT_BYTES + 1} bytes`)
  })

  it('counts bytes, not characters: multibyte variables under the limit in characters but over it in UTF-8 are refused', async () => {
    const input = {renderId: 'r', bucketName: 'bucket', siteId: 's', entry: 'index.html', outputKey: 'o.mp4', config: {variables: {}}}
    // 100,000 characters of two bytes (é) and 40,000 of four (an emoji, two UTF-16 units): 360,000 bytes.
    const title = 'é'.repeat(100_000) + '🎬'.repeat(40_000)
    expect(JSON.stringify(title).length).toBeLessThan(MAX_EXECUTION_INPUT_BYTES)
    const over = {...input, config: {variables: {title}}}
    expect(() => validateConfig(over)).toThrow(/^\[validateConfig\] config: the workflow execution input is 3\d{5} bytes, over the limit of 262144 bytes/)
    await expect(start({variables: {title}})).rejects.toMatchObject({code: 'PAYLOAD_TOO_LARGE'})
    expect(requests).toBe(0)
  })

  it('an odd height is refused for mp4 like an odd width, naming the field and the even value to use', async () => {
    await expect(start({width: 320, height: 181})).rejects.toThrow(/\[validateConfig\] config\.height: 181: mp4 needs an even width and height; use 182/)
    await expect(start({width: 321, height: 181})).rejects.toThrow(/config\.width: 321, config\.height: 181: .*use 322 and 182/)
    expect(requests).toBe(0)
  })

  it('HDR, unknown formats, bad frame rates and odd mp4 sizes are refused before any request', async () => {
    await expect(start({hdr: true})).rejects.toThrow(/\[validateConfig\] config\.hdr: true is not supported by distributed renders \(HDR mp4 is rendered in-process only\)/)
    await expect(start({format: 'avi'})).rejects.toThrow(/config\.format: "avi" is not a known format/)
    await expect(start({fps: 500})).rejects.toThrow(/config\.fps: "500" is out of range/)
    await expect(start({width: 321, height: 180})).rejects.toThrow(/config\.width: 321.*even/)
    await expect(start({chunkSize: 0})).rejects.toThrow(/config\.chunkSize/)
    await expect(start({keyframeInterval: 0})).rejects.toThrow(/config\.keyframeInterval: must be a number of seconds from 0\.1 to 60/)
    await expect(start({colour: 'red'})).rejects.toThrow(/config\.colour: not a render setting/)
    await expect(start({pageErrors: 'ignore'})).rejects.toThrow(/config\.pageErrors: .*"fail".*"warn"/)
    expect(requests).toBe(0)
  })

  it('deploySite checks the project before uploading anything', async () => {
    await expect(deploySite({projectDir: '/nonexistent/project', bucketName: 'engine-renders', endpoint})).rejects.toThrow(/is not a directory/)
    expect(requests).toBe(0)
  })
})
