import {S3Client} from '@aws-sdk/client-s3'
import {SFNClient} from '@aws-sdk/client-sfn'

/** Points every client at another endpoint, e.g. the local stack (`engine lambda local`). */
export const AWS_ENDPOINT_ENV = 'ENGINE_AWS_ENDPOINT'
export const BUCKET_ENV = 'ENGINE_BUCKET'
export const STATE_MACHINE_ENV = 'ENGINE_SFN_ARN'
/** Credentials for an endpoint that does not check them: s3rver's built-in key pair (the local stack). */
export const LOCAL_CREDENTIALS = {accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER'}
const LOCAL_REGION = 'us-east-1'

export interface AwsClientOptions {
  /** Endpoint URL; default ENGINE_AWS_ENDPOINT, else the AWS endpoint of the region. */
  endpoint?: string
  region?: string
  env?: NodeJS.ProcessEnv
}

interface ResolvedClientConfig {
  endpoint?: string
  region?: string
  credentials?: typeof LOCAL_CREDENTIALS
}

/**
 * With a custom endpoint, the region and credentials default to placeholders so that the local
 * stack works without an AWS account; real credentials in the environment still win.
 */
export function clientConfig(options: AwsClientOptions = {}): ResolvedClientConfig {
  const env = options.env ?? process.env
  const endpoint = options.endpoint ?? (env[AWS_ENDPOINT_ENV] || undefined)
  if (!endpoint) return options.region ? {region: options.region} : {}
  const hasCredentials = Boolean(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE)
  return {
    endpoint,
    region: options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? LOCAL_REGION,
    ...(hasCredentials ? {} : {credentials: LOCAL_CREDENTIALS}),
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
