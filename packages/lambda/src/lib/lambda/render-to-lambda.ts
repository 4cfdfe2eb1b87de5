import {randomBytes} from 'node:crypto'
import {StartExecutionCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {outputExtension} from 'html-video-engine/internal/lib/encode/format-plugin.js'
import {getFormat} from 'html-video-engine/internal/lib/encode/format-registry.js'
import type {WebhookTarget} from 'html-video-engine/internal/lib/notify/index.js'
import {createS3Client, createSfnClient, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {assertSiteId} from './deploy-site.js'
import {assertSiteEntry} from './site-address.js'
import type {RenderConfig, RenderInput, SiteHandle} from './render-input.js'
import {assertStorageKey} from 'html-video-engine/internal/lib/render/storage-key.js'
import {storeRenderWebhook} from './render-webhook.js'
import {checkLambdaWebhook} from './lambda-webhook.js'
import {BucketObjects} from './s3-objects.js'
import {defaultOutputKey} from './storage-keys.js'
import {validateConfig} from './validate-config.js'

export interface RenderToLambdaOptions extends AwsClientOptions {
  siteHandle: Pick<SiteHandle, 'siteId'> & Partial<SiteHandle>
  bucketName: string
  stateMachineArn: string
  config: RenderConfig
  /** Storage key of the result; default `renders/<renderId>/output.<ext>`. */
  outputKey?: string
  /** A client to reuse (batches); default one from the options. */
  sfn?: SFNClient
  /** Called by the workflow when the render ends (assemble) or fails (its failure path). */
  webhook?: WebhookTarget
}

/** A started render. `renderId` is also the execution's name. */
export interface RenderHandle {
  renderId: string
  executionArn: string
  bucketName: string
  outputKey: string
}

/** Time-ordered (base 36 milliseconds) and unique (random suffix); valid as an execution name. */
export function newRenderId(): string {
  return `${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`
}

/** The execution input of a render; pure, so that a dry run and a real start build the same thing. */
export function renderInput(options: Omit<RenderToLambdaOptions, 'stateMachineArn' | 'sfn'>, renderId: string = newRenderId()): RenderInput {
  const format = options.config.format ?? 'mp4'
  let outputKey = options.outputKey
  if (outputKey === undefined) {
    let extension = ''
    try {
      extension = outputExtension(getFormat(format)) ?? ''
    } catch {
      // An unknown format is reported by validateConfig, with the field name.
    }
    outputKey = defaultOutputKey(renderId, extension)
  }
  return {
    renderId,
    bucketName: options.bucketName,
    siteId: options.siteHandle.siteId,
    entry: options.siteHandle.entry ?? 'index.html',
    outputKey,
    config: options.config,
  }
}

/**
 * Starts one distributed render: a Step Functions execution named after a new renderId. The
 * config is validated and the serialized input measured before any request is made, so an
 * oversized config (over 262144 bytes) fails here, not in the cloud.
 */
export async function renderToLambda(options: RenderToLambdaOptions): Promise<RenderHandle> {
  if (options.outputKey !== undefined) assertStorageKey(options.outputKey, 'outputKey')
  const input = renderInput(options)
  assertSiteId(input.siteId, 'siteHandle.siteId')
  assertSiteEntry(input.entry, 'siteHandle.entry')
  const serialized = validateConfig(input)
  const sfn = options.sfn ?? createSfnClient(options)
  if (options.webhook) {
    const webhook = checkLambdaWebhook(options.webhook, options.endpoint)
    const bucket = new BucketObjects(createS3Client(options), input.bucketName)
    await storeRenderWebhook(bucket, input.renderId, webhook).catch((error: unknown) => {
      throw awsFailure(error, `storing the webhook of render ${input.renderId}`, {bucketName: input.bucketName, endpoint: options.endpoint})
    })
  }
  try {
    const started = await sfn.send(new StartExecutionCommand({stateMachineArn: options.stateMachineArn, name: input.renderId, input: serialized}))
    return {renderId: input.renderId, executionArn: started.executionArn!, bucketName: input.bucketName, outputKey: input.outputKey}
  } catch (error) {
    throw awsFailure(error, `starting a render on ${options.stateMachineArn}`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
}
