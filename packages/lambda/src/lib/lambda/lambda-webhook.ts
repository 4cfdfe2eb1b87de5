import {parseWebhookData, webhookTarget, type WebhookTarget} from 'html-video-engine/internal/lib/notify/index.js'
import {LAMBDA_REFUSED_HINT, lambdaWebhookPolicy} from './webhook-policy.js'

/**
 * A webhook handed to the SDK (`renderToLambda`, `renderBatchOnLambda`), checked as the CLI checks
 * `--webhook`: an http(s) URL the function may call from where it runs, a secret, and data of at
 * most 4 KB. `endpoint` is the stack's (the local stack's function may call this machine).
 */
export function checkLambdaWebhook(target: WebhookTarget, endpoint: string | undefined): WebhookTarget {
  const checked = webhookTarget({
    url: target.url,
    secret: target.secret,
    urlField: 'webhook.url',
    secretHint: 'give webhook.secret; the receiver checks X-Engine-Signature with it',
    policy: lambdaWebhookPolicy(endpoint),
    refusedHint: LAMBDA_REFUSED_HINT,
    code: 'INVALID_REQUEST',
  })
  return target.data === undefined ? checked : {...checked, data: parseWebhookData(target.data, 'webhook.data', 'INVALID_REQUEST')}
}
