import type {AddressPolicy} from 'html-video-engine/internal/lib/notify/index.js'
import {bareHost} from 'html-video-engine/internal/lib/notify/address-policy.js'
import {AWS_ENDPOINT_ENV} from './aws-clients.js'

/**
 * Which addresses the function's webhook calls may reach. In AWS the function makes the call, so
 * a loopback, private or link-local address is the function's own sandbox or network (the Lambda
 * runtime API listens on loopback), never the user's machine: only public addresses. On the local
 * stack (`engine lambda local`, an endpoint on this machine) the function runs here, and a
 * receiver on this machine is the user's choice, as it is for a local render.
 */
export function lambdaWebhookPolicy(endpoint: string | undefined = process.env[AWS_ENDPOINT_ENV] || undefined): AddressPolicy {
  return {allowPrivate: endpoint !== undefined && onThisMachine(endpoint)}
}

/** How a refused webhook address is explained at the door (`--webhook`, the SDK's `webhook`). */
export const LAMBDA_REFUSED_HINT =
  'The serverless function makes the call from AWS, where such an address is its own network, never your machine: give a public http(s) URL (on the local stack, `engine lambda local`, receivers on this machine are allowed)'

function onThisMachine(endpoint: string): boolean {
  if (!URL.canParse(endpoint)) return false
  const host = bareHost(new URL(endpoint).hostname)
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}
