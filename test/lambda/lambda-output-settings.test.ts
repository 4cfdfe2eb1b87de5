import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {
  CreateBucketCommand,
  GetBucketLifecycleConfigurationCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  type LifecycleRule,
} from '@aws-sdk/client-s3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkOutputSettings} from '../../packages/lambda/src/cli/lambda-flags.js'
import {DescribeExecutionCommand} from '@aws-sdk/client-sfn'
import {createS3Client, createSfnClient} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {renderCallerPolicy} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {deployStack} from '../../packages/lambda/src/lib/lambda/deploy/deploy-stack.js'
import {stackResources} from '../../packages/lambda/src/lib/lambda/deploy/stack-resources.js'
import type {StackRecord} from '../../packages/lambda/src/lib/lambda/stack-record.js'
import {removeRender, waitForRender} from '../../packages/lambda/src/lib/lambda/index.js'
import {bucketNameProblem, contentDisposition, downloadNameProblem} from '../../packages/lambda/src/lib/lambda/output-settings.js'
import {checkConfig} from '../../packages/lambda/src/lib/lambda/validate-config.js'
import {checkConfiguration} from '../../packages/lambda/src/lib/lambda/local/bucket-lifecycle-api.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {probeVideoStream} from '../support/media.js'
import {runCli, type CliResult} from '../support/run-cli.js'
import {sharedStack} from '../support/shared-stack.js'
import {until} from '../support/until.js'
import {StandInCloud, writeBundle} from './stand-in-cloud.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')

describe('output settings, checked alike for the CLI, the SDK and the handler', () => {
  it('a download name becomes Content-Disposition per RFC 6266: an ASCII filename and, for anything else, an RFC 5987 filename*', () => {
    expect(contentDisposition('launch.mp4')).toBe('attachment; filename="launch.mp4"')
    expect(contentDisposition('say "hi".mp4')).toBe('attachment; filename="say \\"hi\\".mp4"')
    expect(contentDisposition("Café ☕ l'été (1).mp4")).toBe(`attachment; filename="Caf_ _ l'_t_ (1).mp4"; filename*=UTF-8''Caf%C3%A9%20%E2%98%95%20l%27%C3%A9t%C3%A9%20%281%29.mp4`)
    expect(downloadNameProblem('a/b.mp4')).toMatch(/path separator/)
    expect(downloadNameProblem('..\\b.mp4')).toMatch(/path separator/)
    expect(downloadNameProblem('a\r\nSet-Cookie: x=1')).toMatch(/control character/)
    expect(downloadNameProblem('')).toMatch(/empty/)
    expect(downloadNameProblem('x'.repeat(256))).toMatch(/at most 255/)
    expect(bucketNameProblem('Other_Bucket')).toMatch(/lowercase letters, digits, dots and hyphens/)
    expect(bucketNameProblem('192.168.0.1')).toMatch(/IP address/)
    expect(bucketNameProblem('my-outputs')).toBeUndefined()
    // The SDK's config is checked the same way before any cloud call, naming the field.
    expect(() => checkConfig({downloadName: 'clips/a.mp4'})).toThrow(/\[validateConfig\] config.downloadName: contains a path separator/)
    expect(() => checkConfig({outputBucket: 'Bad_Bucket'})).toThrow(/config.outputBucket: is not a bucket name/)
    expect(() => checkConfig({deleteAfter: '2d' as never})).toThrow(/config.deleteAfter/)
    expect(() => checkConfig({downloadName: 'Launch – final.mp4', outputBucket: 'client-videos', deleteAfter: '30d'})).not.toThrow()
  })

  it('the local S3 refuses lifecycle documents S3 refuses, hostile ones included, and pollutes nothing', () => {
    const rule = (inner: string) => `<LifecycleConfiguration><Rule>${inner}</Rule></LifecycleConfiguration>`
    const refusal = (xml: string) => ('refusal' in checkConfiguration(xml) ? (checkConfiguration(xml) as {refusal: {code: string}}).refusal.code : 'accepted')
    expect(refusal('not xml')).toBe('MalformedXML')
    expect(refusal('<LifecycleConfiguration></LifecycleConfiguration>')).toBe('MalformedXML')
    expect(refusal('<LifecycleConfiguration><Rule><Status>On</Status></Rule>')).toBe('MalformedXML')
    expect(refusal(rule('<Status>Enabled</Status><Prefix>a</Prefix><Filter><Prefix>a</Prefix></Filter><Expiration><Days>1</Days></Expiration>'))).toBe('MalformedXML')
    expect(refusal(rule('<Status>Enabled</Status><Filter><Prefix>a</Prefix></Filter>'))).toBe('InvalidRequest')
    expect(refusal(rule(`<ID>${'x'.repeat(256)}</ID><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>`))).toBe('InvalidArgument')
    // Entities that expand a thousandfold and more are not expanded into the stored rule.
    const laughs = ['a', 'b', 'c', 'd', 'e'].map((name, at) => `<!ENTITY ${name} "${at === 0 ? 'x'.repeat(10) : `&${'abcd'[at - 1]};`.repeat(10)}">`).join('')
    const expanded = checkConfiguration(`<?xml version="1.0"?><!DOCTYPE l [${laughs}]>${rule('<ID>&e;</ID><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>')}`)
    expect(JSON.stringify(expanded).length).toBeLessThan(1000)
    // Elements named after Object.prototype's keys are refused, not merged into objects.
    expect(refusal(rule('<Status>Enabled</Status><Expiration><Days>1</Days></Expiration><__proto__><polluted>1</polluted></__proto__>'))).toBe('MalformedXML')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    // A rule without an ID gets one, as S3 gives it.
    expect(checkConfiguration(rule('<Status>Enabled</Status><Expiration><Days>1</Days></Expiration>'))).toMatchObject({rules: [{ID: expect.stringMatching(/^[\w-]{32}$/), Status: 'Enabled'}]})
  })

  it('deploy writes a lifecycle rule per --delete-after value, grants --output-bucket buckets to the function, and the caller policy covers them', () => {
    const resources = stackResources({region: 'eu-west-1', accountId: '123456789012', outputBuckets: ['client-videos']})
    expect(resources.bucket.LifecycleConfiguration.Rules.filter((rule) => 'Tag' in rule.Filter)).toEqual([
      {ID: 'engine-delete-after-1d', Status: 'Enabled', Filter: {Tag: {Key: 'engine-delete-after', Value: '1d'}}, Expiration: {Days: 1}},
      {ID: 'engine-delete-after-7d', Status: 'Enabled', Filter: {Tag: {Key: 'engine-delete-after', Value: '7d'}}, Expiration: {Days: 7}},
      {ID: 'engine-delete-after-30d', Status: 'Enabled', Filter: {Tag: {Key: 'engine-delete-after', Value: '30d'}}, Expiration: {Days: 30}},
    ])
    const statements = Object.fromEntries(resources.functionRole.PolicyDocument.Statement.map((statement) => [statement.Sid, statement]))
    // A PutObject with tags needs s3:PutObjectTagging too.
    expect(statements.RenderObjects.Action).toContain('s3:PutObjectTagging')
    // It checks that the output key is free before it renders: HeadObject (s3:GetObject), 404 only with s3:ListBucket.
    expect(statements.ListOutputBuckets).toEqual({Sid: 'ListOutputBuckets', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: ['arn:aws:s3:::client-videos']})
    expect(statements.OutputBuckets).toEqual({
      Sid: 'OutputBuckets',
      Effect: 'Allow',
      Action: ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging', 's3:DeleteObject', 's3:AbortMultipartUpload'],
      Resource: ['arn:aws:s3:::client-videos/*'],
    })
    expect(stackResources({region: 'eu-west-1', accountId: '123456789012'}).functionRole.PolicyDocument.Statement.map((statement) => statement.Sid)).not.toContain('OutputBuckets')
    expect(() => stackResources({region: 'eu-west-1', accountId: '123456789012', outputBuckets: ['Bad_Bucket']})).toThrow(/--output-bucket: "Bad_Bucket" is not a bucket name/)
    const caller = renderCallerPolicy({region: 'eu-west-1', accountId: '123456789012', outputBuckets: ['client-videos']})
    expect(caller.Statement.find((statement) => statement.Sid === 'Outputs')).toMatchObject({Action: ['s3:GetObject', 's3:DeleteObject'], Resource: ['arn:aws:s3:::client-videos/*']})
    // A deployed stack refuses a bucket it was not granted before anything starts; the local stack has no IAM.
    const stack = {functionName: 'engine-render', stateMachineArn: 'arn', region: 'eu-west-1', memoryMb: 3008, deployedAt: '', kind: 'aws' as const, outputBuckets: ['client-videos']}
    expect(() => checkOutputSettings({outputBucket: 'client-videos'}, stack)).not.toThrow()
    expect(() => checkOutputSettings({outputBucket: 'elsewhere'}, stack)).toThrow(/--output-bucket: .*may not write to "elsewhere" \(it may write to client-videos\); run `engine lambda deploy --output-bucket elsewhere` first/)
    expect(() => checkOutputSettings({outputBucket: 'elsewhere'}, {...stack, kind: 'local'})).not.toThrow()
    // A stack deployed before deploy added the --delete-after rules to output buckets: refused, the rule named.
    expect(() => checkOutputSettings({outputBucket: 'client-videos', deleteAfter: '7d'}, stack)).toThrow(
      /--delete-after 7d: "client-videos" has no lifecycle rule engine-delete-after-7d \(the stack was deployed before .*\), so the output would never be deleted/,
    )
  })
})

describe('--download-name, --output-bucket and --delete-after on the local stack', () => {
  let stack: RunningStack
  let scratch: string
  let siteId: string
  const outputBucket = `engine-out-${Date.now().toString(36)}`
  const lambda = (args: string[]): Promise<CliResult> => runCli(['lambda', ...args], {env: stack.env})
  const s3 = () => createS3Client({endpoint: stack.env.ENGINE_AWS_ENDPOINT})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-outputs-'))])
    await s3().send(new CreateBucketCommand({Bucket: outputBucket}))
    const site = await lambda(['sites', 'create', PROJECT])
    siteId = /^Site ID: (\w+)$/m.exec(site.stdout)![1]!
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('the local S3 keeps a PutObject\'s tags, refuses tags S3 refuses (markup, too many) and keeps nothing of a PUT it refused', async () => {
    const note = 'café: a/b = c+d @ 1.5'
    await s3().send(new PutObjectCommand({Bucket: outputBucket, Key: 'tags/a.txt', Body: 'a', Tagging: `engine-delete-after=1d&note=${encodeURIComponent(note)}`}))
    const {TagSet} = await s3().send(new GetObjectTaggingCommand({Bucket: outputBucket, Key: 'tags/a.txt'}))
    expect(TagSet).toEqual([{Key: 'engine-delete-after', Value: '1d'}, {Key: 'note', Value: note}])
    await expect(s3().send(new PutObjectCommand({Bucket: outputBucket, Key: 'tags/x.txt', Body: 'x', Tagging: `note=${encodeURIComponent('<Tag>&"x"</Tag>')}`}))).rejects.toMatchObject({name: 'InvalidTag'})
    const eleven = Array.from({length: 11}, (_, index) => `k${index}=v`).join('&')
    await expect(s3().send(new PutObjectCommand({Bucket: outputBucket, Key: 'tags/x.txt', Body: 'x', Tagging: eleven}))).rejects.toMatchObject({name: 'InvalidTag'})
    expect(await new BucketObjects(s3(), outputBucket).exists('tags/x.txt')).toBe(false)
    await expect(s3().send(new PutObjectCommand({Bucket: 'engine-no-such-bucket', Key: 'tags/b.txt', Body: 'b', Tagging: 'engine-delete-after=7d'}))).rejects.toThrow()
    // An untagged PUT of the same key later is untagged.
    await s3().send(new PutObjectCommand({Bucket: outputBucket, Key: 'tags/c.txt', Body: 'c'}))
    expect((await s3().send(new GetObjectTaggingCommand({Bucket: outputBucket, Key: 'tags/c.txt'}))).TagSet).toEqual([])
  })

  it('deploy adds the --delete-after rules to output buckets beside the owner\'s, once however often it runs, and says which buckets it may not change', async () => {
    const suffix = Date.now().toString(36)
    const [owned, locked, elsewhere] = [`engine-owned-${suffix}`, `engine-locked-${suffix}`, `engine-elsewhere-${suffix}`]
    for (const bucket of [owned, locked]) await s3().send(new CreateBucketCommand({Bucket: bucket}))
    const rules = async (bucket: string) => (await s3().send(new GetBucketLifecycleConfigurationCommand({Bucket: bucket}))).Rules ?? []
    // As S3 answers: no configuration yet, and a configuration S3 refuses.
    await expect(rules(owned)).rejects.toMatchObject({name: 'NoSuchLifecycleConfiguration', $metadata: {httpStatusCode: 404}})
    const twice: LifecycleRule[] = [1, 2].map((days) => ({ID: 'same', Status: 'Enabled', Filter: {Prefix: 'a/'}, Expiration: {Days: days}}))
    await expect(s3().send(new PutBucketLifecycleConfigurationCommand({Bucket: owned, LifecycleConfiguration: {Rules: twice}}))).rejects.toMatchObject({name: 'InvalidArgument'})
    const ownersRule: LifecycleRule = {ID: 'owner-logs', Status: 'Enabled', Filter: {Prefix: 'logs/'}, Expiration: {Days: 90}}
    for (const bucket of [owned, stack.env.ENGINE_BUCKET]) await s3().send(new PutBucketLifecycleConfigurationCommand({Bucket: bucket, LifecycleConfiguration: {Rules: [ownersRule]}}))

    // S3's lifecycle calls reach the local S3; the rest of the account is a stand-in, whose policy refuses the deployer one bucket's rules.
    const dir = await mkdtemp(join(tmpdir(), 'engine-lifecycle-deploy-'))
    const codeHashes = new Map<string, string>()
    const cloud = new StandInCloud({
      accountId: '000000000000',
      region: 'us-east-1',
      concurrency: 1000,
      memoryCapMb: 10240,
      codeHashes,
      passThrough: ['GetBucketLifecycleConfigurationCommand', 'PutBucketLifecycleConfigurationCommand'],
      denied: (command, input) => command === 'PutBucketLifecycleConfiguration' && input.Bucket === locked,
    })
    const notices: string[] = []
    try {
      const codeZip = await writeBundle(join(dir, 'bundle.zip'), 'export const handler = () => 1', codeHashes)
      for (let run = 0; run < 2; run++) {
        await deployStack({endpoint: stack.env.ENGINE_AWS_ENDPOINT, region: 'us-east-1', bucketName: stack.env.ENGINE_BUCKET, outputBuckets: [owned, locked, elsewhere], codeZip, plugins: [cloud.plugin()], onWarning: (notice) => notices.push(`${notice.code}: ${notice.message}`)})
      }
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
    const ours = ['engine-delete-after-1d', 'engine-delete-after-7d', 'engine-delete-after-30d']
    expect(await rules(owned)).toEqual([ownersRule, ...ours.map((ID, at) => ({ID, Status: 'Enabled', Filter: {Tag: {Key: 'engine-delete-after', Value: ['1d', '7d', '30d'][at]}}, Expiration: {Days: [1, 7, 30][at]}}))])
    // The render bucket's own rules too, beside a rule its owner added.
    expect((await rules(stack.env.ENGINE_BUCKET)).map((rule) => rule.ID)).toEqual(['owner-logs', 'expire-render-scratch', 'abort-incomplete-uploads', ...ours])
    await expect(rules(locked)).rejects.toMatchObject({name: 'NoSuchLifecycleConfiguration'})

    const lifecycleNotices = notices.filter((notice) => notice.startsWith('output-bucket-lifecycle'))
    // One notice per deploy for each bucket it could not change, naming the rules to add by hand.
    expect(lifecycleNotices).toHaveLength(4)
    expect(lifecycleNotices[0]).toMatch(new RegExp(`output bucket ${locked}: deploy may not change its lifecycle rules \\(AccessDenied.*\\).*add these rules to ${locked} by hand.*engine-delete-after-1d \\(objects tagged engine-delete-after=1d: expire 1 day after creation\\).*engine-delete-after-30d.*lambda render refuses --delete-after into ${locked}`))
    expect(lifecycleNotices[1]).toMatch(new RegExp(`output bucket ${elsewhere}: deploy may not read its lifecycle rules \\(NoSuchBucket`))

    const put = cloud.calls.filter((call) => call.command === 'PutObjectCommand' && call.input.Key === 'engine-stack.json').at(-1)!
    const record = JSON.parse(String(put.input.Body)) as StackRecord
    expect(record).toMatchObject({outputBuckets: [owned, locked, elsewhere], deleteAfterRules: {[owned]: 'present', [locked]: 'missing', [elsewhere]: 'unknown'}})
    // Renders: into a bucket with the rules, as asked; one deploy found without them, refused before anything starts; one it could not read, a warning.
    expect(checkOutputSettings({outputBucket: owned, deleteAfter: '1d'}, record)).toBeUndefined()
    expect(() => checkOutputSettings({outputBucket: locked, deleteAfter: '30d'}, record)).toThrow(new RegExp(`--delete-after 30d: "${locked}" has no lifecycle rule engine-delete-after-30d \\(deploy may not add it there\\)`))
    expect(checkOutputSettings({outputBucket: locked}, record)).toBeUndefined()
    expect(checkOutputSettings({outputBucket: elsewhere, deleteAfter: '7d'}, record)).toMatch(/could not read the lifecycle rules .* deleted only if that bucket has the rule engine-delete-after-7d/)
  }, 60_000)

  it('bad values are refused before anything is uploaded or started, naming the flag', async () => {
    for (const [flag, value, message] of [
      ['--download-name', 'clips/launch.mp4', /--download-name: "clips\/launch.mp4" contains a path separator/],
      ['--download-name', 'launch\u0007.mp4', /--download-name: .* contains a control character/],
      ['--output-bucket', 'Not_A_Bucket', /--output-bucket: "Not_A_Bucket" is not a bucket name/],
      ['--delete-after', '2d', /--delete-after.*2d/],
    ] as const) {
      const result = await lambda(['render', PROJECT, '--site-id', siteId, flag, value])
      expect(result.code, `${flag} ${value}`).not.toBe(0)
      expect(result.stderr, `${flag} ${value}`).toMatch(message)
      expect(result.stdout).not.toMatch(/renderId/)
    }
  }, 120_000)

  it('a render to another bucket: the output there with its Content-Disposition and deletion tag, a presigned URL that carries the name, and renders rm removes it there', async () => {
    const name = 'Café résumé.mp4'
    const started = await lambda(['render', PROJECT, '--site-id', siteId, '--frames', '0-14', '--keyframe-interval', '0.5', '--chunk-size', '15', '--output-key', 'out/named.mp4', '--download-name', name, '--output-bucket', outputBucket, '--delete-after', '7d', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const {renderId} = JSON.parse(started.stdout) as {renderId: string}
    const done = await waitForRender({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 300, signal: AbortSignal.timeout(180_000)})
    expect(done.error).toBeUndefined()
    expect(done.output).toMatchObject({bucketName: outputBucket, outputKey: 'out/named.mp4', url: `s3://${outputBucket}/out/named.mp4`})
    // Not in the render bucket: only its records are.
    expect(await stack.bucket.exists('out/named.mp4')).toBe(false)

    const expected = `attachment; filename="Caf_ r_sum_.mp4"; filename*=UTF-8''Caf%C3%A9%20r%C3%A9sum%C3%A9.mp4`
    const head = await s3().send(new HeadObjectCommand({Bucket: outputBucket, Key: 'out/named.mp4'}))
    expect(head.ContentDisposition).toBe(expected)
    const {TagSet} = await s3().send(new GetObjectTaggingCommand({Bucket: outputBucket, Key: 'out/named.mp4'}))
    expect(TagSet).toEqual([{Key: 'engine-delete-after', Value: '7d'}])

    const url = done.output.https!.url
    expect(new URL(url).searchParams.get('response-content-disposition')).toBe(expected)
    const response = await fetch(url, {signal: AbortSignal.timeout(30_000)})
    expect(response.status).toBe(200)
    expect(response.headers.get('content-disposition')).toBe(expected)
    const file = join(scratch, 'named.mp4')
    await writeFile(file, Buffer.from(await response.arrayBuffer()))
    expect(await probeVideoStream(file)).toMatchObject({width: 320, height: 180, nb_read_frames: '15'})

    const removed = await removeRender({renderId, bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN})
    expect(removed).toMatchObject({outputKey: 'out/named.mp4', outputBucket})
    await expect(s3().send(new HeadObjectCommand({Bucket: outputBucket, Key: 'out/named.mp4'}))).rejects.toThrow()
  }, 240_000)

  it('a still gets the same: its download name and tag, in the render bucket by default', async () => {
    const result = await lambda(['still', PROJECT, '--site-id', siteId, '--frame', '5', '--output-key', 'stills/named.png', '--download-name', 'frame five.png', '--delete-after', '1d', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const done = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {outputUrl: {url: string}}
    const head = await s3().send(new HeadObjectCommand({Bucket: stack.env.ENGINE_BUCKET, Key: 'stills/named.png'}))
    expect(head.ContentDisposition).toBe('attachment; filename="frame five.png"')
    const {TagSet} = await s3().send(new GetObjectTaggingCommand({Bucket: stack.env.ENGINE_BUCKET, Key: 'stills/named.png'}))
    expect(TagSet).toEqual([{Key: 'engine-delete-after', Value: '1d'}])
    const response = await fetch(done.outputUrl.url, {signal: AbortSignal.timeout(30_000)})
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="frame five.png"')
  }, 120_000)

  it('render-batch --output-bucket --delete-after --download-name: every row\'s output goes to that bucket, tagged, under its own download name; a bad name stops only its row, named by line', async () => {
    const batch = join(scratch, 'rows.jsonl')
    const rows = [
      {outputKey: 'batch/one.mp4', downloadName: 'Ada – final.mp4', variables: {accent: '#ff0000'}},
      {outputKey: 'batch/two.mp4', accent: '#00ff00'},
      {outputKey: 'batch/three.mp4', downloadName: '../three.mp4'},
    ]
    await writeFile(batch, rows.map((row) => JSON.stringify(row)).join('\n'))
    const result = await lambda(['render-batch', PROJECT, '--site-id', siteId, '--batch', batch, '--frames', '0-4', '--output-bucket', outputBucket, '--delete-after', '30d', '--download-name', 'Clip {index} {accent}.mp4', '--json'])
    expect(result.code, result.stderr).toBe(1)
    const entries = JSON.parse(result.stdout) as {line: number; status: string; executionArn: string; error?: {message: string}}[]
    expect(entries.map((entry) => entry.status)).toEqual(['started', 'started', 'failed-to-start'])
    expect(entries[2]!.error!.message).toMatch(/^line 3: "downloadName": "..\/three.mp4" contains a path separator/)
    const sfn = createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    for (const entry of entries.slice(0, 2)) {
      // A row's render starts when the batch workflow's map reaches it: until then its execution does not exist.
      await until(() => sfn.send(new DescribeExecutionCommand({executionArn: entry.executionArn})).then(() => true, () => false), 60_000, 300)
      const done = await waitForRender({render: entry.executionArn, endpoint: stack.env.ENGINE_AWS_ENDPOINT, pollMs: 300, signal: AbortSignal.timeout(180_000)})
      expect(done.error).toBeUndefined()
      expect(done.output).toMatchObject({bucketName: outputBucket})
    }
    const head = (key: string) => s3().send(new HeadObjectCommand({Bucket: outputBucket, Key: key}))
    // The row's own name, beyond ASCII; the template filled from the row (index from 0, values made safe for a file name).
    expect((await head('batch/one.mp4')).ContentDisposition).toBe(`attachment; filename="Ada _ final.mp4"; filename*=UTF-8''Ada%20%E2%80%93%20final.mp4`)
    expect((await head('batch/two.mp4')).ContentDisposition).toBe('attachment; filename="Clip 1 #00ff00.mp4"')
    const {TagSet} = await s3().send(new GetObjectTaggingCommand({Bucket: outputBucket, Key: 'batch/one.mp4'}))
    expect(TagSet).toEqual([{Key: 'engine-delete-after', Value: '30d'}])
    expect(await stack.bucket.exists('batch/one.mp4')).toBe(false)
    await expect(head('batch/three.mp4')).rejects.toThrow()
  }, 240_000)
})
