import {EngineError, isEngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {AWS_ENDPOINT_ENV, BUCKET_ENV} from './aws-clients.js'

/**
 * Turns an AWS SDK failure met by a command or the SDK into an EngineError that says what to do:
 * a missing bucket, an unreachable endpoint, missing credentials. `what` names the operation.
 */
export function awsFailure(error: unknown, what: string, context: {bucketName?: string; endpoint?: string} = {}): EngineError {
  if (isEngineError(error)) return error
  const failure = error as Error & {code?: string; $metadata?: {httpStatusCode?: number}}
  const name = failure?.name ?? 'Error'
  const message = failure?.message ?? String(error)
  const endpoint = context.endpoint ?? process.env[AWS_ENDPOINT_ENV]
  if (name === 'NoSuchBucket') {
    return new EngineError(
      'NOT_FOUND',
      `${what}: bucket "${context.bucketName}" does not exist; run \`engine lambda deploy\` (or \`engine lambda local\`) and export the ${BUCKET_ENV} it prints`,
      {bucketName: context.bucketName},
    )
  }
  if (failure?.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) {
    return new EngineError(
      'SERVER_UNAVAILABLE',
      `${what}: nothing answers at ${endpoint ?? 'the AWS endpoint'}; start \`engine lambda local\` or unset ${AWS_ENDPOINT_ENV}`,
      {endpoint},
    )
  }
  if (['CredentialsProviderError', 'UnrecognizedClientException', 'InvalidAccessKeyId', 'AccessDenied', 'SignatureDoesNotMatch', 'InvalidSignatureException'].includes(name)) {
    // The local stack's refusal already says what to export.
    const fix = /engine lambda local/.test(message) ? '' : '; configure AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID) with access to the stack'
    return new EngineError('UNAUTHORIZED', `${what}: ${message} (${name})${fix}`, {name})
  }
  if (name === 'ExecutionDoesNotExist' || name === 'StateMachineDoesNotExist') {
    return new EngineError('NOT_FOUND', `${what}: ${message}`, {name})
  }
  return new EngineError('INTERNAL', `${what}: ${name}: ${message}`, {name, status: failure?.$metadata?.httpStatusCode}, {cause: error})
}
