import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'
import {listInstalledPlugins} from 'html-video-engine/internal/lib/config/installed-plugins.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {buildLambdaBundle, DEFAULT_BUNDLE_NAME} from '../bundle/build-lambda-bundle.js'
import {BUNDLE_LAYOUT} from '../bundle/bundle-layout.js'
import {readZipEntry} from '../bundle/read-zip.js'
import type {BucketObjects} from '../s3-objects.js'
import {hashFile} from '../site-files.js'
import type {Architecture} from './stack-resources.js'
import {DEPLOY_PREFIX} from './stack-roles.js'

/** The function's code, ready before anything is created: built now or checked, and hashed. */
export interface PreparedCode {
  zipPath: string
  /** Hex sha256 of the zip. */
  sha256: string
  /** What the bundle renders, from its manifest (absent in bundles that do not record it). */
  formats?: string[]
  /** Removes what preparing made (a bundle built into a temporary directory). */
  dispose(): Promise<void>
}

export const codeKey = (sha256: string) => `${DEPLOY_PREFIX}function-${sha256.slice(0, 16)}.zip`
/** Lambda reports a function's CodeSha256 as base64. */
export const lambdaSha256 = (hex: string) => Buffer.from(hex, 'hex').toString('base64')

/**
 * The given zip, checked to be a function bundle for `arch`, or one built now. Either way this
 * happens before deploy creates anything, so a bad --code costs nothing.
 */
export async function prepareCode(codeZip: string | undefined, arch: Architecture, step: (message: string) => void): Promise<PreparedCode> {
  if (codeZip) {
    const manifest = await bundleManifest(codeZip)
    return {zipPath: codeZip, sha256: (await hashFile(codeZip)).sha256, formats: manifest.formats, dispose: async () => {}}
  }
  if (arch !== 'x86_64') {
    throw new EngineError('INVALID_FLAG', `--arch ${arch}: deploy builds x86_64 bundles only; build one with \`engine lambda bundle --arch ${arch}\` and pass it with --code`, {field: 'arch', value: arch})
  }
  const workDir = await makeTempDirectory('deploy')
  try {
    step('bundle (engine lambda bundle)')
    const bundle = await buildLambdaBundle({output: join(workDir, DEFAULT_BUNDLE_NAME), plugins: await listInstalledPlugins(), onWarning: (message) => step(`warning: ${message}`)})
    return {zipPath: bundle.path, sha256: bundle.sha256, formats: bundle.formats, dispose: () => rm(workDir, {recursive: true, force: true})}
  } catch (error) {
    await rm(workDir, {recursive: true, force: true})
    throw error
  }

  async function bundleManifest(path: string): Promise<{formats?: string[]; arch?: string}> {
    const text = await readZipEntry(path, BUNDLE_LAYOUT.manifest).catch((error: Error) => {
      throw new EngineError('INVALID_FLAG', `--code: ${path} cannot be read as a zip (${error.message}); build a bundle with \`engine lambda bundle\``, {field: 'code', value: path})
    })
    const handler = await readZipEntry(path, BUNDLE_LAYOUT.handler, 64 * 1024 * 1024)
    if (!text || !handler) {
      throw new EngineError('INVALID_FLAG', `--code: ${path} is not a function bundle (no ${BUNDLE_LAYOUT.manifest} or ${BUNDLE_LAYOUT.handler}); build one with \`engine lambda bundle\``, {field: 'code', value: path})
    }
    const manifest = JSON.parse(text.toString('utf8')) as {formats?: string[]; arch?: string}
    // Bundles from before --arch are x86_64.
    const built = manifest.arch ?? 'x86_64'
    if (built !== arch) {
      throw new EngineError('INVALID_FLAG', `--code: ${path} was built for ${built}, not --arch ${arch}; build it with \`engine lambda bundle --arch ${arch}\``, {field: 'code', value: path, arch: built})
    }
    return manifest
  }
}

/**
 * Puts the zip in the bucket under its content hash (bundles are larger than a direct upload
 * allows). An object already there is reused only if `verify` finds that Lambda took the same
 * bytes: anyone who could write that key could otherwise have swapped the code (see deployStack).
 */
export async function uploadCode(bucket: BucketObjects, code: PreparedCode, step: (message: string) => void, force = false): Promise<{S3Bucket: string; S3Key: string; uploaded: boolean}> {
  const key = codeKey(code.sha256)
  if (!force && (await bucket.exists(key))) {
    step(`code ${key} (already uploaded)`)
    return {S3Bucket: bucket.bucketName, S3Key: key, uploaded: false}
  }
  step(`code ${key}`)
  await bucket.uploadFile(key, code.zipPath, 'application/zip')
  return {S3Bucket: bucket.bucketName, S3Key: key, uploaded: true}
}

/** Lambda's CodeSha256 must be the zip's own: otherwise the object was changed after it was written. */
export function assertCodeHash(reported: string | undefined, code: PreparedCode, key: string): void {
  if (reported === lambdaSha256(code.sha256)) return
  throw new EngineError(
    'DEPLOY_FAILED',
    `the function's code (sha256 ${reported ?? 'unknown'}, base64) is not the bundle deployed (${lambdaSha256(code.sha256)}): s3://…/${key} was changed after it was uploaded. ` +
      'Check who may write deploy/* in the bucket (`engine lambda policies role` gives callers no such right), then deploy again',
    {key, reported, expected: lambdaSha256(code.sha256)},
  )
}
