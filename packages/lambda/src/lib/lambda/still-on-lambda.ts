import {InvokeCommand, LambdaClient} from '@aws-sdk/client-lambda'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {parseFps} from 'html-video-engine/internal/lib/plan/fps.js'
import type {StillOutput} from './actions/still-action.js'
import {clientConfig, createS3Client, type AwsClientOptions} from './aws-clients.js'
import {awsFailure} from './aws-errors.js'
import {DEFAULT_STACK_NAME, LIVE_ALIAS} from './deploy/stack-resources.js'
import {outputUrl, type OutputUrl, type OutputUrlOptions} from './output-url.js'
import {stillInputSchema, type SiteHandle, type StillInput} from './render-input.js'
import {newRenderId} from './render-to-lambda.js'
import {BucketObjects} from './s3-objects.js'
import {readStackRecord} from './stack-record.js'
import {stillExtension} from 'html-video-engine/internal/lib/still/still-settings.js'
import {parseTaskCause} from './task-errors.js'
import {assertOutputKey} from './reserved-keys.js'
import {outputsElsewhere} from './validate-config.js'

export interface StillOnLambdaOptions extends AwsClientOptions, OutputUrlOptions {
  siteHandle: SiteHandle
  config: StillInput['config']
  /** Storage key of the image (default `stills/<id>.<ext>`). */
  outputKey?: string
  /** The render function (default: the one the stack record names, else engine-render). */
  functionName?: string
}

export interface LambdaStill extends StillOutput {
  functionName: string
  /** The image's HTTPS URL, as `privacy` asks (none for private). */
  outputUrl?: OutputUrl
}

/**
 * One still on the serverless stack: a single synchronous invocation of the render function (no
 * workflow, no chunks), which renders the frame as `engine still` does and stores the image.
 */
export async function stillOnLambda(options: StillOnLambdaOptions): Promise<LambdaStill> {
  const {siteHandle, config} = options
  const format = config.format ?? 'png'
  const parsed = stillInputSchema.safeParse({
    bucketName: siteHandle.bucketName,
    siteId: siteHandle.siteId,
    entry: siteHandle.entry,
    outputKey: options.outputKey ?? `stills/${newRenderId()}${stillExtension(format)}`,
    config,
  })
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys' ? `${issue.keys.map((key) => `config.${key}`).join(', ')}: not a still setting` : `${issue.path.join('.')}: ${issue.message}`,
    )
    throw new EngineError('INVALID_CONFIG', `still: ${problems.join('; ')}`, {issues: parsed.error.issues})
  }
  const input = parsed.data
  assertOutputKey(input.outputKey, 'outputKey', {otherBucket: outputsElsewhere(input)})
  if (input.config.fps !== undefined) parseFps(input.config.fps, 'config.fps')
  const s3 = createS3Client(options)
  const stack = await readStackRecord(new BucketObjects(s3, siteHandle.bucketName))
  const functionName = options.functionName ?? stack?.functionName ?? DEFAULT_STACK_NAME
  // A stack with published versions is invoked through its live alias, as the workflows invoke the version.
  const qualifier = stack?.functionVersion !== undefined && options.functionName === undefined ? LIVE_ALIAS : undefined
  const lambda = new LambdaClient(clientConfig(options))
  let response
  try {
    const payload = Buffer.from(JSON.stringify({action: 'still', still: input}))
    response = await lambda.send(new InvokeCommand({FunctionName: functionName, Qualifier: qualifier, InvocationType: 'RequestResponse', Payload: payload}))
  } catch (error) {
    throw awsFailure(error, `invoking ${functionName} for a still`, {bucketName: siteHandle.bucketName, endpoint: options.endpoint})
  }
  const payload = Buffer.from(response.Payload ?? new Uint8Array()).toString('utf8')
  if (response.FunctionError) {
    const failure = parseTaskCause(errorTypeOf(payload), payload)
    throw new EngineError(failure?.code ?? 'INTERNAL', `still on ${functionName}: ${failure?.message ?? payload}`, failure?.details)
  }
  const result = JSON.parse(payload) as StillOutput
  const url = await outputUrl(s3, input.config.outputBucket ?? siteHandle.bucketName, result.outputKey, {...options, downloadName: input.config.downloadName})
  return {...result, functionName, ...(url && {outputUrl: url})}
}

function errorTypeOf(payload: string): string | undefined {
  try {
    return (JSON.parse(payload) as {errorType?: string}).errorType
  } catch {
    return undefined
  }
}
