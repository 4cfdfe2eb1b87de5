import {randomBytes} from 'node:crypto'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {mkdir, rm} from 'node:fs/promises'
import {isIP, type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {S3Client} from '@aws-sdk/client-s3'
import S3rver from 's3rver'
import AWSAccount from 's3rver/lib/models/account.js'
import {makeListingsTolerateWrites, makeObjectWritesAtomic} from './atomic-object-writes.js'
import {keepContinuationTokensWorking} from './s3rver-continuation-tokens.js'
import {AWS_ENDPOINT_ENV, createS3Client, LOCAL_ACCESS_KEY_ID, LOCAL_TOKEN_ENV} from '../aws-clients.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {LOCAL_MEMORY_ENV} from '../handler.js'
import {BucketObjects} from '../s3-objects.js'
import {listFormats} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {STACK_RECORD_KEY, type StackRecord} from '../stack-record.js'
import {renderStateMachineDefinition} from '../state-machine-definition.js'
import {batchStateMachineArnOf, batchStateMachineDefinition} from '../batch/batch-state-machine.js'
import {BundleFunction} from './bundle-function.js'
import {confineStoreKeys} from './confine-store-keys.js'
import {keepTagsOfPuts} from './tags-on-put.js'
import {LocalBucketLifecycle} from './bucket-lifecycle-api.js'
import {WarmChildren} from './warm-children.js'
import {LocalFunction} from './local-function.js'
import {isLambdaRequest, LocalLambdaApi} from './lambda-invoke-api.js'
import {LocalStepFunctions} from './local-step-functions.js'
import {ExecutionEndEvents} from './execution-end-events.js'
import {refusalOf, sendRefusal} from './request-guard.js'
import {sendInvalidKey, unsafeKeyProblem} from './refuse-unsafe-keys.js'
import {ownedBucketRefusal} from './owned-buckets.js'
import {handleSfnRequest, isSfnRequest} from './sfn-json-api.js'

export const LOCAL_REGION = 'us-east-1'
export const LOCAL_ACCOUNT = '000000000000'
export const LOCAL_FUNCTION_NAME = 'engine-render'
export const DEFAULT_LOCAL_BUCKET = 'engine-renders'
export const DEFAULT_LOCAL_CONCURRENCY = 8

export interface LocalStackOptions {
  /** Port of the one endpoint serving S3 and Step Functions; 0 picks a free one. */
  port?: number
  /** A loopback address (default 127.0.0.1): the stack is for this machine only. */
  host?: string
  /** The secret clients sign requests with (at least 32 characters); default: a new random one. */
  token?: string
  /** Where s3rver keeps the bucket (default: the system temp directory), so sites survive restarts. */
  directory?: string
  bucketName?: string
  /** Function invocations at once (stands in for reserved concurrency); one more is throttled. */
  concurrency?: number
  /**
   * A function bundle (`engine lambda bundle`): invocations run from it in a Lambda-like child
   * instead of from this engine's own code, with only the bundle's browser, ffmpeg and fonts.
   */
  bundle?: string
  /** Memory the cost estimate assumes for each invocation. */
  memoryMb?: number
}

export interface LocalStack {
  endpoint: string
  /** Clients must sign every request with it (ENGINE_LOCAL_TOKEN). */
  token: string
  bucketName: string
  stateMachineArn: string
  functionArn: string
  directory: string
  close(): Promise<void>
}

/**
 * The serverless stack on one machine, on one loopback endpoint: s3rver answers the S3 API, and
 * requests that name a Step Functions operation go to a local Step Functions that executes the
 * same state-machine definitions (the render workflow and the batch workflow beside it) and runs
 * the same handler, one child process per invocation, and Lambda Invoke requests for the function
 * run it directly.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const bucketName = options.bucketName ?? DEFAULT_LOCAL_BUCKET
  const directory = options.directory ?? join(tmpdir(), 'engine-lambda-local')
  const concurrency = options.concurrency ?? DEFAULT_LOCAL_CONCURRENCY
  const memoryMb = options.memoryMb ?? 10240
  const host = loopbackHost(options.host ?? '127.0.0.1')
  const token = checkedToken(options.token ?? randomBytes(32).toString('hex'))
  await mkdir(directory, {recursive: true})
  // s3rver checks no SigV4 signature (the request guard does); it only needs to know the key id.
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(LOCAL_ACCESS_KEY_ID, token)
  const s3rver = new S3rver({directory, silent: true, vhostBuckets: false, allowMismatchedSignatures: true, configureBuckets: [{name: bucketName}]})
  makeObjectWritesAtomic(s3rver.store)
  makeListingsTolerateWrites(s3rver.store)
  keepContinuationTokensWorking()
  confineStoreKeys(s3rver.store)
  const noteTags = keepTagsOfPuts(s3rver.store)
  await s3rver.configureBuckets()
  const s3Handler = s3rver.callback()
  const lifecycle = new LocalBucketLifecycle(s3rver.store)

  const functionArn = `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${LOCAL_FUNCTION_NAME}`
  const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:${LOCAL_FUNCTION_NAME}`
  let endpoint = ''
  // Beside the bucket directory, not in it: s3rver takes every directory there for a bucket.
  const functionDirectory = `${directory}.function`
  const bundled = options.bundle
    ? await BundleFunction.prepare({bundle: options.bundle, directory: functionDirectory, functionName: LOCAL_FUNCTION_NAME, region: LOCAL_REGION, memoryMb, endpoint: () => endpoint, token})
    : undefined
  const environments = new WarmChildren(() => ({...process.env, [AWS_ENDPOINT_ENV]: endpoint, [LOCAL_TOKEN_ENV]: token, [LOCAL_MEMORY_ENV]: String(memoryMb)}))
  const renderFunction = new LocalFunction(concurrency, (event, onChild) => (bundled ? bundled.invoke(event, onChild) : environments.invoke(event, onChild)))
  // The stack's own S3, as the workflows' S3 tasks reach it (the endpoint is known once it listens).
  let ownS3: S3Client | undefined
  const endEvents = new ExecutionEndEvents(stateMachineArn, renderFunction)
  const stepFunctions = new LocalStepFunctions({
    machines: [
      {arn: stateMachineArn, definition: renderStateMachineDefinition(functionArn)},
      {arn: batchStateMachineArnOf(stateMachineArn), definition: batchStateMachineDefinition(stateMachineArn, functionArn)},
    ],
    function: renderFunction,
    s3: () => (ownS3 ??= createS3Client({endpoint, localToken: token})),
    onExecutionEnded: (detail) => endEvents.deliver(detail),
  })
  const lambdaApi = new LocalLambdaApi(LOCAL_FUNCTION_NAME, renderFunction, memoryMb)
  const server = createServer((request, response) => {
    void answer(request, response).catch((error: Error) => {
      if (!response.headersSent) sendRefusal(request, response, {status: 500, code: 'InternalError', message: error.message})
      else response.destroy()
    })
  })
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const refusal = await refusalOf(request, (server.address() as AddressInfo).port, token)
    if (refusal) {
      sendRefusal(request, response, refusal)
      return
    }
    if (isSfnRequest(request)) {
      void handleSfnRequest(stepFunctions, request, response)
      return
    }
    if (isLambdaRequest(request)) {
      void lambdaApi.handle(request, response)
      return
    }
    const problem = unsafeKeyProblem(request)
    if (problem) {
      sendInvalidKey(request, response, problem)
      return
    }
    const owned = await ownedBucketRefusal(request, s3rver.store)
    if (owned) {
      sendRefusal(request, response, owned)
      return
    }
    if (LocalBucketLifecycle.matches(request)) {
      await lifecycle.handle(request, response)
      return
    }
    const invalidTag = noteTags(request, response)
    if (invalidTag) {
      sendRefusal(request, response, {status: 400, code: 'InvalidTag', message: invalidTag})
      return
    }
    s3Handler(request, response)
  }
  await listen(server, options.port ?? 0, host)
  const address = server.address() as AddressInfo
  endpoint = `http://${address.address}:${address.port}`

  const record: StackRecord = {
    functionName: LOCAL_FUNCTION_NAME,
    stateMachineArn,
    region: LOCAL_REGION,
    memoryMb,
    reservedConcurrency: concurrency,
    deployedAt: new Date().toISOString(),
    kind: 'local',
    // From the bundle's manifest, or this process's own registry when invocations run this engine.
    formats: bundled ? await bundled.formats() : listFormats().map((format) => format.name),
  }
  await new BucketObjects(createS3Client({endpoint, localToken: token}), bucketName).putJson(STACK_RECORD_KEY, record)

  return {
    endpoint,
    token,
    bucketName,
    stateMachineArn,
    functionArn,
    directory,
    close: async () => {
      await stepFunctions.close()
      await endEvents.close()
      environments.close()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
      if (bundled) await rm(functionDirectory, {recursive: true, force: true})
    },
  }
}

function loopbackHost(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '')
  if (bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'))) return bare
  throw new EngineError('INVALID_FLAG', `host: "${host}" is not a loopback address; the local stack listens on this machine only (127.0.0.1, ::1 or localhost)`, {field: 'host', value: host})
}

function checkedToken(token: string): string {
  if (token.length >= 32 && /^[\x21-\x7e]+$/.test(token)) return token
  throw new EngineError('INVALID_FLAG', `${LOCAL_TOKEN_ENV}: the local stack's token must be at least 32 printable characters without spaces; unset it to get a new random one`, {
    field: LOCAL_TOKEN_ENV,
  })
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
