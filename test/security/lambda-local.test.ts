import {randomBytes} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {InvokeCommand, LambdaClient} from '@aws-sdk/client-lambda'
import {GetObjectCommand, S3Client} from '@aws-sdk/client-s3'
import {getSignedUrl} from '@aws-sdk/s3-request-presigner'
import type {Browser, Page} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {clientConfig} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {deploySite} from '../../packages/lambda/src/lib/lambda/deploy-site.js'
import {startLocalStack} from '../../packages/lambda/src/lib/lambda/local/local-stack.js'
import {renderToLambda} from '../../packages/lambda/src/lib/lambda/render-to-lambda.js'
import {stillOnLambda} from '../../packages/lambda/src/lib/lambda/still-on-lambda.js'
import {startStackCli, type RunningStack} from '../lambda/support.js'
import {launchUserBrowser, servePage, type WebSite} from './support/hostile-web.js'
import {rawRequest} from './support/raw-http.js'
import {signedRawRequest} from './support/signed-http.js'
import {PROCESSES} from '../support/timeouts.js'

const REBIND_HOST = 'rebind.test'
const COMPOSITION = (color: string) =>
  `<!doctype html><html><body style="margin:0"><div data-composition-id="c" data-width="320" data-height="180" data-duration="1" style="width:320px;height:180px;background:${color}"></div></body></html>`

let base: string
let stack: RunningStack
let endpoint: string
let bucket: string
let token: string
let siteId: string
let browser: Browser
let hostile: WebSite
/** A composition beside the system temp directory's site copies, where `../../<name>` from a site leads. */
let outsideName: string

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'engine-lambda-local-sec-'))
  await mkdir(join(base, 'stack'))
  await mkdir(join(base, 'project', 'sub'), {recursive: true})
  await writeFile(join(base, 'project', 'index.html'), COMPOSITION('#336699'))
  await writeFile(join(base, 'project', 'sub', 'inner.css'), 'body {}')
  outsideName = `engine-outside-${randomBytes(4).toString('hex')}.html`
  await writeFile(join(tmpdir(), outsideName), COMPOSITION('#ff0000'))
  stack = await startStackCli([], 60_000, join(base, 'stack'))
  ;({ENGINE_AWS_ENDPOINT: endpoint, ENGINE_BUCKET: bucket, ENGINE_LOCAL_TOKEN: token} = stack.env)
  siteId = (await deploySite({projectDir: join(base, 'project'), bucketName: bucket, endpoint})).siteId
  hostile = await servePage('127.0.0.2', () => attackPage())
  browser = await launchUserBrowser(REBIND_HOST)
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => hostile?.server.close(resolve))
  await stack?.stop()
  await rm(join(tmpdir(), outsideName), {force: true})
  await rm(base, {recursive: true, force: true})
})

const stillEvent = (still: Record<string, unknown>) => ({action: 'still', still: {bucketName: bucket, siteId, entry: 'index.html', outputKey: 'stolen/x.png', config: {}, ...still}})

/** What the attacker page did: an S3 POST-object form with a climbing key, and a text/plain Invoke. */
function attackPage(): string {
  const invoke = JSON.stringify(JSON.stringify(stillEvent({entry: `../../${outsideName}`, outputKey: 'stolen/outside.png'})))
  return `<!doctype html><html><body><script>
  window.results = {}
  const record = (key) => [(response) => (window.results[key] = response.type === 'opaque' ? 'opaque' : response.status), () => (window.results[key] = 'blocked')]
  const form = new FormData()
  form.append('key', '../../outside/x')
  form.append('file', new Blob(['pwned']), 'x.txt')
  fetch('${endpoint}/${bucket}', {method: 'POST', mode: 'no-cors', body: form}).then(...record('postObject'))
  fetch('${endpoint}/2015-03-31/functions/engine-render/invocations', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: ${invoke}}).then(...record('invoke'))
  fetch('${endpoint}/${bucket}/engine-stack.json').then(...record('read'))
</script></body></html>`
}

async function visit(url: string, expected: string[], prepare?: (page: Page) => Promise<void>) {
  const page = await browser.newPage()
  const seen: {method: string; url: string; status: number}[] = []
  page.on('response', (response) => {
    if (response.url() !== url) seen.push({method: response.request().method(), url: response.url(), status: response.status()})
  })
  await prepare?.(page)
  await page.goto(url)
  let results: Record<string, unknown> = {}
  for (let attempt = 0; attempt < 150 && !expected.every((key) => key in results); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    results = await page.evaluate(() => (window as unknown as {results: Record<string, unknown>}).results)
  }
  await page.close()
  return {seen, results}
}

describe('engine lambda local answers no web page', PROCESSES, () => {
  it('a page on another origin: its POST-object form and text/plain Invoke are refused, nothing is written or rendered', async () => {
    const {seen, results} = await visit(hostile.origin, ['postObject', 'invoke', 'read'])
    expect(results).toEqual({postObject: 'opaque', invoke: 'opaque', read: 'blocked'})
    const posts = seen.filter((entry) => entry.method === 'POST')
    expect(posts).toHaveLength(2)
    for (const post of posts) expect(post.status).toBe(403)
    expect(existsSync(join(base, 'outside'))).toBe(false)
    expect(await stack.bucket.listKeys('stolen/')).toEqual([])
  })

  it('a page on a host name re-pointed at the stack (DNS rebinding) gets 421 even for same-origin reads', async () => {
    const port = new URL(endpoint).port
    const pageUrl = `http://${REBIND_HOST}:${port}/`
    const page = `<!doctype html><html><body><script>
      window.results = {}
      fetch('/${bucket}/engine-stack.json').then((r) => (window.results.read = r.status), () => (window.results.read = 'blocked'))
    </script></body></html>`
    const {results} = await visit(pageUrl, ['read'], async (tab) => {
      await tab.setRequestInterception(true)
      tab.on('request', (request) => {
        if (request.url() === pageUrl) void request.respond({status: 200, contentType: 'text/html', body: page})
        else void request.continue()
      })
    })
    expect(results).toEqual({read: 421})
  })
})

describe('every request must be signed with the printed token, addressed to loopback, without an Origin', PROCESSES, () => {
  const record = () => `${endpoint}/${bucket}/engine-stack.json`

  it('unsigned, wrongly signed and expired requests are refused (403) on S3, Step Functions and Lambda; the token opens them', async () => {
    expect((await rawRequest(record())).status).toBe(403)
    expect((await rawRequest(record())).body).toMatch(/<Code>AccessDenied<\/Code><Message>the local stack refuses this request: it carries no signature .*ENGINE_LOCAL_TOKEN/)
    expect((await signedRawRequest(record(), 'x'.repeat(64))).status).toBe(403)
    expect((await signedRawRequest(record(), token, {accessKeyId: 'AKIAOTHER'})).status).toBe(403)
    expect((await signedRawRequest(record(), token)).status).toBe(200)

    const sfn = {method: 'POST', headers: {'x-amz-target': 'AWSStepFunctions.StartExecution', 'content-type': 'application/x-amz-json-1.0'}, body: '{}'}
    const unsigned = await rawRequest(endpoint + '/', sfn)
    expect([unsigned.status, JSON.parse(unsigned.body).__type]).toEqual([403, 'AccessDenied'])
    // Signed, the request reaches Step Functions (which finds the input incomplete).
    expect((await signedRawRequest(endpoint + '/', token, {...sfn, service: 'states'})).status).toBe(400)

    const invoke = {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(stillEvent({outputKey: 'stolen/y.png'}))}
    expect((await rawRequest(`${endpoint}/2015-03-31/functions/engine-render/invocations`, invoke)).status).toBe(403)
    // Signed, it reaches the Invoke API (which knows no such function).
    const signedOther = await signedRawRequest(`${endpoint}/2015-03-31/functions/someone-else/invocations`, token, {...invoke, service: 'lambda'})
    expect(signedOther.status).toBe(404)
    expect(await stack.bucket.listKeys('stolen/')).toEqual([])

    // A presigned URL from the engine works until it expires.
    const s3 = new S3Client({endpoint, forcePathStyle: true, region: 'us-east-1', credentials: {accessKeyId: 'engine-local', secretAccessKey: token}})
    const sign = (signingDate: Date) => getSignedUrl(s3, new GetObjectCommand({Bucket: bucket, Key: 'engine-stack.json'}), {expiresIn: 60, signingDate})
    expect((await rawRequest(await sign(new Date()))).status).toBe(200)
    expect((await rawRequest(await sign(new Date(Date.now() - 120_000)))).status).toBe(403)
  })

  it('a Host other than the stack own loopback address gets 421; a request carrying an Origin gets 403, even when signed', async () => {
    const port = new URL(endpoint).port
    for (const host of [`evil.test:${port}`, `127.0.0.1:${Number(port) + 1}`, `localhost.evil.test:${port}`]) {
      const response = await signedRawRequest(record(), token, {headers: {host}})
      expect(response.status, host).toBe(421)
    }
    expect((await signedRawRequest(record(), token, {headers: {host: `localhost:${port}`}})).status).toBe(200)
    const fromPage = await signedRawRequest(record(), token, {headers: {origin: 'http://127.0.0.2:8080'}})
    expect(fromPage.status).toBe(403)
    expect(fromPage.body).toMatch(/refuses requests from web pages/)
    expect((await signedRawRequest(record(), token, {headers: {'sec-fetch-site': 'cross-site'}})).status).toBe(403)
  })

  it('the stack binds loopback only: another address is refused before anything listens', async () => {
    expect(new URL(endpoint).hostname).toBe('127.0.0.1')
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      await expect(startLocalStack({host, directory: join(base, 'never')}), host).rejects.toMatchObject({code: 'INVALID_FLAG', message: expect.stringMatching(/is not a loopback address/)})
    }
  })
})

describe('every form of key is held to the key rule, even for a client holding the token', PROCESSES, () => {
  it('a POST-object form key, a DeleteObjects key and an uploadId cannot name a file outside the bucket', async () => {
    await writeFile(join(base, 'victim.txt'), 'keep me')
    const boundary = 'engineboundary'
    const form = (key: string) =>
      [`--${boundary}`, 'Content-Disposition: form-data; name="key"', '', key, `--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="x.txt"', 'Content-Type: text/plain', '', 'pwned', `--${boundary}--`, ''].join('\r\n')
    for (const key of ['../../outside/x', '../victim.txt', 'a/../../../outside/y']) {
      const response = await signedRawRequest(`${endpoint}/${bucket}`, token, {method: 'POST', headers: {'content-type': `multipart/form-data; boundary=${boundary}`}, body: form(key)})
      expect(response.status, key).toBe(400)
      expect(response.body).toMatch(/<Code>InvalidArgument<\/Code>/)
    }
    const deleteXml = `<?xml version="1.0" encoding="UTF-8"?><Delete><Object><Key>../../victim.txt</Key></Object></Delete>`
    const deleted = await signedRawRequest(`${endpoint}/${bucket}?delete`, token, {method: 'POST', headers: {'content-type': 'application/xml'}, body: deleteXml})
    expect(deleted.status).toBe(400)
    const part = await signedRawRequest(`${endpoint}/${bucket}/ok.bin?partNumber=1&uploadId=..%2F..%2F..%2Foutside`, token, {method: 'PUT', body: 'pwned'})
    expect(part.status).toBe(404)

    expect(existsSync(join(base, 'outside'))).toBe(false)
    expect(existsSync(join(base, 'victim.txt'))).toBe(true)
    // The forms themselves work with a plain key.
    expect((await signedRawRequest(`${endpoint}/${bucket}`, token, {method: 'POST', headers: {'content-type': `multipart/form-data; boundary=${boundary}`}, body: form('ok/form.txt')})).status).toBeLessThan(300)
    expect((await signedRawRequest(`${endpoint}/${bucket}/ok/form.txt`, token)).body).toBe('pwned')
  })
})

describe('the function checks siteId and entry itself, with one answer for a missing and a forbidden entry', PROCESSES, () => {
  const invoke = async (still: Record<string, unknown>) => {
    const client = new LambdaClient(clientConfig({endpoint}))
    const answer = await client.send(new InvokeCommand({FunctionName: 'engine-render', Payload: Buffer.from(JSON.stringify(stillEvent(still)))}))
    const payload = JSON.parse(Buffer.from(answer.Payload!).toString('utf8')) as {errorType?: string; errorMessage?: string}
    // The function's error message is the EngineError as JSON.
    const error = payload.errorMessage === undefined ? undefined : (JSON.parse(payload.errorMessage) as {message: string})
    return {functionError: answer.FunctionError, errorType: payload.errorType, errorMessage: error?.message}
  }

  it('an entry or siteId that climbs out of the site is refused before any file is read; nothing is rendered', async () => {
    const outside = await invoke({entry: `../../${outsideName}`, outputKey: 'stolen/outside.png'})
    expect(outside).toMatchObject({functionError: 'Unhandled', errorType: 'Engine.INVALID_REQUEST', errorMessage: expect.stringMatching(/still\.entry: .*has a "\.\." segment/)})
    const site = await invoke({siteId: '../../sites/x', outputKey: 'stolen/site.png'})
    expect(site).toMatchObject({errorType: 'Engine.INVALID_REQUEST', errorMessage: expect.stringMatching(/still\.siteId: .*is not a Site ID/)})
    expect(await stack.bucket.listKeys('stolen/')).toEqual([])
  })

  it('a missing file and a directory of the site get the same answer', async () => {
    const answers = await Promise.all(['missing.html', 'sub', 'sub/nothing/deeper.html'].map((entry) => invoke({entry, outputKey: 'stolen/z.png'})))
    for (const [answer, entry] of answers.map((answer, index) => [answer, ['missing.html', 'sub', 'sub/nothing/deeper.html'][index]] as const)) {
      expect(answer.errorType).toBe('Engine.NOT_FOUND')
      expect(answer.errorMessage).toBe(`entry: "${entry}" is not a file of site ${siteId}; name the composition by its path inside the site`)
    }
    // The site itself renders.
    const fine = await invoke({outputKey: 'ok/still.png'})
    expect(fine.functionError).toBeUndefined()
  })

  it('the SDK refuses the same before any cloud call', async () => {
    await expect(renderToLambda({siteHandle: {siteId: '../x'}, bucketName: bucket, stateMachineArn: stack.env.ENGINE_SFN_ARN, config: {}, endpoint})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: expect.stringMatching(/^siteHandle\.siteId: "\.\.\/x" is not a Site ID/),
    })
    await expect(renderToLambda({siteHandle: {siteId, entry: '../x.html'}, bucketName: bucket, stateMachineArn: stack.env.ENGINE_SFN_ARN, config: {}, endpoint})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: expect.stringMatching(/^siteHandle\.entry: "\.\.\/x\.html" has a "\.\." segment/),
    })
    await expect(stillOnLambda({siteHandle: {siteId, bucketName: bucket, entry: `../../${basename(outsideName)}`}, config: {}, endpoint})).rejects.toMatchObject({code: 'INVALID_CONFIG'})
  })
})
