import type {RenderProgress} from '../lib/lambda/render-progress.js'

/** The human form of `lambda progress`. */
export function progressLines(progress: RenderProgress): string[] {
  const of = (done: number, total?: number) => (total === undefined ? `${done}` : `${done}/${total}`)
  const size = progress.output.bytes === undefined ? '' : ` (${(progress.output.bytes / 1e6).toFixed(2)} MB)`
  const lines = [
    `Render ${progress.renderId}: ${progress.status} (${progress.stage})`,
    `Execution: ${progress.executionArn}`,
    `Chunks: ${of(progress.chunks.done, progress.chunks.total)} done; frames ${of(progress.frames.done, progress.frames.total)}`,
    `Output: ${progress.output.url}${size}${progress.status === 'SUCCEEDED' ? '' : ' (when done)'}`,
    ...urlLines(progress),
    ...(progress.output.posterKey ? [`Poster: s3://${progress.output.bucketName}/${progress.output.posterKey}`] : []),
    `Elapsed: ${progress.elapsedSeconds.toFixed(1)} s`,
    `Estimated cost: $${progress.cost.usd.toFixed(6)} (${progress.cost.lambdaGbSeconds} Lambda GB-s, ${progress.cost.requests} requests, ${progress.cost.ephemeralGbSeconds} GB-s of /tmp above 512 MB, ${progress.cost.stateTransitions} state transitions; S3 not included)`,
  ]
  for (const warning of progress.warnings) lines.push(`Warning [${warning.code}]: ${warning.message}`)
  if (progress.webhook) {
    const {webhook} = progress
    lines.push(
      webhook.delivered
        ? `Webhook: ${webhook.type} delivered to ${webhook.url} (${webhook.attempts} attempt(s))`
        : `Webhook: ${webhook.type} NOT delivered to ${webhook.url} after ${webhook.attempts} attempt(s): ${webhook.error}`,
    )
  }
  if (progress.error) lines.push(`Error [${progress.error.code}]: ${progress.error.message}`)
  return lines
}

/** One short line while waiting. */
export function progressTick(progress: RenderProgress): string {
  const frames = progress.frames.total === undefined ? '' : `, frames ${progress.frames.done}/${progress.frames.total}`
  const chunks = progress.chunks.total === undefined ? '' : `, chunks ${progress.chunks.done}/${progress.chunks.total}`
  return `${progress.stage}${chunks}${frames}, ${progress.elapsedSeconds.toFixed(1)} s`
}

function urlLines(progress: RenderProgress): string[] {
  const https = progress.output.https
  if (!https) return []
  if (https.privacy === 'public') return [`URL: ${https.url} (works only if the bucket allows public reads)`]
  return [`URL: ${https.url}`, `URL expires: ${https.expiresAt}`]
}
