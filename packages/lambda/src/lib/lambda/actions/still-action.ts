import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {resolveRenderOptions} from 'html-video-engine/internal/lib/render/resolve-options.js'
import {contentType} from 'html-video-engine/internal/lib/sandbox/content-type.js'
import {renderStill, type StillResult} from 'html-video-engine/internal/lib/still/render-still.js'
import {stillExtension, stillFormatOf} from 'html-video-engine/internal/lib/still/still-settings.js'
import {fetchSite, siteEntryPath} from '../fetch-site.js'
import type {StillEvent} from '../render-input.js'
import {BucketObjects} from '../s3-objects.js'
import {outputObjectHeaders} from '../output-settings.js'
import {siteFontPackages} from '../site-fonts.js'
import type {ActionContext} from './action-context.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'
import {assertOutputKey} from '../reserved-keys.js'
import {assertOutputFree} from '../output-taken.js'
import {outputsElsewhere} from '../validate-config.js'

/** What one still invocation answers: the image's key and what `engine still` reports. */
export interface StillOutput extends Omit<StillResult, 'output'> {
  outputKey: string
  /** Warnings the render raised (variables, fonts, blocked requests). */
  warnings: {code: string; message: string}[]
}

/**
 * Renders one frame of a site's composition in this invocation, exactly as `engine still` does
 * (same compile, page, seek and image encoding), and stores the image at `outputKey`. No state
 * machine: one frame needs no chunks, so it answers in one cold or warm start.
 */
export async function stillAction(event: StillEvent, context: ActionContext): Promise<StillOutput> {
  const {bucketName, siteId, entry, outputKey, config} = event.still
  assertOutputKey(outputKey, 'outputKey', {otherBucket: outputsElsewhere(event.still)})
  const bucket = new BucketObjects(context.s3, bucketName)
  const {variables, fps, scale, strictFonts, pageErrors, outputBucket, downloadName, deleteAfter, overwrite, ...settings} = config
  const outputs = outputBucket ? new BucketObjects(context.s3, outputBucket) : bucket
  await assertOutputFree(outputs, outputKey, {overwrite})
  const siteDir = await fetchSite(bucket, siteId)
  const format = settings.format ?? stillFormatOf(outputKey, 'outputKey', 'INVALID_REQUEST')
  const workDir = await makeTempDirectory('still')
  try {
    const output = join(workDir, `still${stillExtension(format)}`)
    const warnings: StillOutput['warnings'] = []
    // A serverless render never reaches private addresses (they would be the cloud's own): the default.
    const options = resolveRenderOptions({output, fps, scale, strictFonts, pageErrors, browserGpu: false})
    const {output: image, ...result} = await renderStill({
      composition: await siteEntryPath(siteDir, siteId, entry),
      projectDir: siteDir,
      fontPackages: await siteFontPackages(siteDir),
      options,
      still: {...settings, format},
      variables,
      onEvent: (renderEvent) => {
        if (renderEvent.type === 'warning') warnings.push({code: renderEvent.code, message: renderEvent.message})
      },
    })
    await outputs.uploadFile(outputKey, image, contentType(outputKey), outputObjectHeaders({downloadName, deleteAfter}))
    return {outputKey, ...result, warnings}
  } finally {
    await rm(workDir, {recursive: true, force: true})
  }
}
