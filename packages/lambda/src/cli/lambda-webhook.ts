import {webhookFromFlags} from 'html-video-engine/internal/cli/webhook-flags.js'
import type {WebhookTarget} from 'html-video-engine/internal/lib/notify/index.js'
import {AWS_ENDPOINT_ENV} from '../lib/lambda/aws-clients.js'
import {LAMBDA_REFUSED_HINT, lambdaWebhookPolicy} from '../lib/lambda/webhook-policy.js'

/** `--webhook`, `--webhook-secret`, `--webhook-data` of a serverless command, checked for where the function calls from. */
export function lambdaWebhookFromFlags(
  flags: {webhook?: string; 'webhook-secret'?: string; 'webhook-data'?: string; endpoint?: string},
  env: NodeJS.ProcessEnv,
): WebhookTarget | undefined {
  const endpoint = flags.endpoint ?? (env[AWS_ENDPOINT_ENV] || undefined)
  return webhookFromFlags(flags, env, {policy: lambdaWebhookPolicy(endpoint), refusedHint: LAMBDA_REFUSED_HINT})
}
