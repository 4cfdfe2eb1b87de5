import type {Pluggable} from '@smithy/types'
import {S3Client} from '@aws-sdk/client-s3'
import {SFNClient} from '@aws-sdk/client-sfn'

/** Points every client at another endpoint, e.g. the local stack (`engine lambda local`). */
export const AWS_ENDPOINT_ENV = 'ENGINE_AWS_ENDPOINT'
export const BUCKET_ENV = 'ENGINE_BUCKET'
export const STATE_MACHINE_ENV = 'ENGINE_SFN_ARN'
/**
 * The secret `engine lambda local` prints: clients sign their requests to the local stack with it
 * (as the secret access key), and the stack answers nothing that is not signed with it.
 */
export const LOCAL_TOKEN_ENV = 'ENGINE_LOCAL_TOKEN'
/** The access key id paired with the local token (the stack checks only the secret). */
export const LOCAL_ACCESS_KEY_ID = 'engine-local'
/** Placeholder credentials for a custom endpoint when neither a token nor real credentials are given. */
const PLACEHOLDER_CREDENTIALS = {accessKeyId: 'engine-local', secretAccessKey: 'no-token'}
const LOCAL_REGION = 'us-east-1'

export interface AwsClientOptions {
  /** Endpoint URL; default ENGINE_AWS_ENDPOINT, else the AWS endpoint of the region. */
  endpoint?: string
  region?: string
  env?: NodeJS.ProcessEnv
  /** The local stack's token; default ENGINE_LOCAL_TOKEN. Used only with a custom endpoint. */
  localToken?: string
}

interface ResolvedClientConfig {
  endpoint?: string
  region?: string
  credentials?: {accessKeyId: string; secretAccessKey: string}
}

/**
 * With a custom endpoint, the region defaults to a placeholder so that the local stack works
 * without an AWS account, and requests are signed with the local stack's token when one is given
 * (it wins over real credentials: they are for AWS, the token is for this endpoint); otherwise
 * real credentials in the environment, or placeholders the local stack refuses with a hint.
 */
export function clientConfig(options: AwsClientOptions = {}): ResolvedClientConfig {
  const env = options.env ?? process.env
  const endpoint = options.endpoint ?? (env[AWS_ENDPOINT_ENV] || undefined)
  if (!endpoint) return options.region ? {region: options.region} : {}
  const token = options.localToken ?? (env[LOCAL_TOKEN_ENV] || undefined)
  const hasCredentials = Boolean(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE)
  const credentials = token ? {accessKeyId: LOCAL_ACCESS_KEY_ID, secretAccessKey: token} : hasCredentials ? undefined : PLACEHOLDER_CREDENTIALS
  return {
    endpoint,
    region: options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? LOCAL_REGION,
    ...(credentials && {credentials}),
  }
}

export function createS3Client(options: AwsClientOptions = {}): S3Client {
  const config = clientConfig(options)
  const custom = config.endpoint !== undefined
  return new S3Client({
    ...config,
    // A custom endpoint has no per-bucket host names, and may not decode the aws-chunked
    // uploads that default checksums turn streamed bodies into (s3rver stores them verbatim).
    forcePathStyle: custom,
    ...(custom && {requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED'}),
  })
}

export function createSfnClient(options: AwsClientOptions = {}): SFNClient {
  return new SFNClient(clientConfig(options))
}

/** Middleware for any of the AWS clients (request logging; a stand-in for the cloud in tests): each client has its own input and output types. */
export type ClientPlugin = Pluggable<any, any>

/** A function that adds `plugins` to each client it is given and returns the client. */
export function withPlugins(plugins: readonly ClientPlugin[] = []): <C extends {middlewareStack: {use(plugin: ClientPlugin): void}}>(client: C) => C {
  return (client) => {
    for (const plugin of plugins) client.middlewareStack.use(plugin)
    return client
  }
}
