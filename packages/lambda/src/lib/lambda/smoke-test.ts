import {rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {AwsClientOptions} from './aws-clients.js'
import {deploySite} from './deploy-site.js'
import type {RenderProgress} from './render-progress.js'
import {renderToLambda} from './render-to-lambda.js'
import {waitForRender} from './wait-for-render.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'

export interface SmokeTestOptions extends AwsClientOptions {
  bucketName: string
  stateMachineArn: string
  /** Gives up after this long (default 10 minutes: a first cold start unpacks Chromium). */
  timeoutMs?: number
  pollMs?: number
  onProgress?: (progress: RenderProgress) => void
}

export interface SmokeTestResult {
  renderId: string
  siteId: string
  seconds: number
  progress: RenderProgress
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000

/**
 * Exercises everything a render needs (site upload, the workflow, the function's browser and
 * ffmpeg, the output upload): one second at 320x180 with text and motion.
 * Always the same files, so the site is uploaded once per bucket.
 */
const SMOKE_COMPOSITION = `<!doctype html>
<html>
<head><style>
  html, body { margin: 0; background: #101820; }
  #label { position: absolute; top: 70px; width: 320px; text-align: center; color: #f2aa4c; font: bold 28px sans-serif; }
  #bar { position: absolute; top: 130px; left: 0; width: 40px; height: 12px; background: #f2aa4c; animation: slide 1s linear forwards; }
  @keyframes slide { to { left: 280px; } }
</style></head>
<body>
  <div data-composition-id="smoke-test" data-width="320" data-height="180" data-duration="1">
    <div id="label">engine smoke test</div>
    <div id="bar"></div>
  </div>
</body>
</html>
`

/** A 1 s 320x180 render through a deployed stack; throws with the render's own error when it fails. */
export async function smokeTest(options: SmokeTestOptions): Promise<SmokeTestResult> {
  const projectDir = await makeTempDirectory('smoke-test')
  try {
    await writeFile(join(projectDir, 'index.html'), SMOKE_COMPOSITION)
    const aws = {endpoint: options.endpoint, region: options.region, env: options.env}
    const site = await deploySite({projectDir, bucketName: options.bucketName, ...aws})
    const started = Date.now()
    const handle = await renderToLambda({siteHandle: site, bucketName: options.bucketName, stateMachineArn: options.stateMachineArn, config: {}, ...aws})
    const progress = await waitForRender({
      render: handle.executionArn,
      ...aws,
      pollMs: options.pollMs,
      onProgress: options.onProgress,
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    }).catch((error: unknown) => {
      if ((error as Error).name !== 'TimeoutError') throw error
      throw new EngineError(
        'INTERNAL',
        `smoke test: render ${handle.renderId} did not finish in ${Math.round((options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s; \`engine lambda progress ${handle.renderId}\` shows where it is`,
        {renderId: handle.renderId},
      )
    })
    if (progress.status !== 'SUCCEEDED') {
      const error = progress.error ?? {code: 'INTERNAL' as const, message: `the execution ended ${progress.status}`}
      throw new EngineError(error.code, `smoke test: render ${handle.renderId} ${progress.status}: ${error.message}`, {renderId: handle.renderId, ...(error.details as object)})
    }
    return {renderId: handle.renderId, siteId: site.siteId, seconds: (Date.now() - started) / 1000, progress}
  } finally {
    await rm(projectDir, {recursive: true, force: true})
  }
}
