import {rm} from 'node:fs/promises'
import {extname, isAbsolute, join, relative, resolve, sep} from 'node:path'
import {companionInstallHint, LAMBDA_COMPANION} from '../config/companions.js'
import {EngineError} from '../errors/engine-error.js'
import {storageKeyProblem} from '../render/storage-key.js'
import type {RenderRow} from './run-batch.js'

/**
 * Where a batch puts its outputs when `--output` is a URL (`s3://bucket/videos/{customer_id}.mp4`).
 * The core has no cloud SDK: a plugin provides the store for its scheme through the
 * `engine:output-stores` hook (the serverless companion provides `s3`), or SDK code passes one.
 */
export interface OutputStore {
  /** The URL scheme it serves, without `://` (`s3`). */
  scheme: string
  /** Opens the bucket once per batch, before any row is checked: a bucket that cannot be reached fails the batch here. */
  open(bucket: string): Promise<OpenOutputStore>
}

export interface OpenOutputStore {
  /** Why this key may not be written in the bucket (a stack's own objects, for example), or undefined. */
  keyProblem(key: string): string | undefined
  /** Uploads the finished local file as `key`; resolves with the bytes stored. */
  put(path: string, key: string): Promise<{bytes: number}>
  /** The stored object's size, or undefined when there is none (`--resume`). */
  size(key: string): Promise<number | undefined>
  /** Every key under a prefix (`engine batch merge s3://…` finds the shard manifests). */
  list(prefix: string): Promise<string[]>
  /** Downloads an object to a local file. */
  get(key: string, path: string): Promise<void>
}

/** The hook a plugin declares to provide output stores; it returns a list of OutputStore. */
export const OUTPUT_STORES_HOOK = 'engine:output-stores'

const URL_TEMPLATE = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)\/(.*)$/i
/** S3's bucket names: 3-63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/

/** Whether an `--output` template names a remote store rather than a local path. */
export function isRemoteTemplate(template: string | undefined): template is string {
  return template !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(template)
}

/**
 * A batch's remote output: each row renders into a local staging folder that mirrors the bucket
 * (`renders/<scheme>/<bucket>/<key>`, where the manifest also lives), is uploaded once finished,
 * and its local file removed; the manifest records the row's URL.
 */
export class RemoteOutput {
  private constructor(
    readonly scheme: string,
    readonly bucket: string,
    /** The local template preflight fills: the staging folder joined with the key template. */
    readonly localTemplate: string,
    private readonly staging: string,
    private readonly store: OpenOutputStore,
  ) {}

  /**
   * Checks the template (the bucket is fixed, the key template a plain relative key) and opens the
   * store of its scheme. Without a store for the scheme: INVALID_FLAG naming what to install.
   */
  static async open(template: string, stores: readonly OutputStore[], cwd: string): Promise<RemoteOutput> {
    const {scheme, bucket, path: keyTemplate, store} = remoteLocation(template, stores, '--output')
    // A folder of frames (png-sequence) is no one object.
    if (extname(keyTemplate) === '') throw invalid('--output', template, 'names no file extension: a remote output is one file per row, such as videos/{index}.mp4')
    const staging = stagingFolder(cwd, scheme, bucket)
    return new RemoteOutput(scheme, bucket, join(staging, keyTemplate), staging, await store.open(bucket))
  }

  /**
   * Puts a file of the batch's own (its finished manifest, its result sheet) beside its outputs, so
   * that workers without a shared folder can be merged from the bucket and the sheet is where the
   * videos are. A file outside the staging folder (`--results` elsewhere) stays where it is.
   */
  async putBatchFile(localPath: string): Promise<void> {
    const key = this.keyOf(localPath)
    if (key.startsWith('../') || isAbsolute(key)) return
    await this.store.put(localPath, key)
  }

  keyOf(localPath: string): string {
    return relative(this.staging, localPath).split(sep).join('/')
  }

  urlOf(localPath: string): string {
    return `${this.scheme}://${this.bucket}/${this.keyOf(localPath)}`
  }

  /** Why a row's filled output cannot be written, for preflight; undefined when it can. */
  outputProblem = (localPath: string): string | undefined => {
    const key = this.keyOf(localPath)
    const problem = storageKeyProblem(key) ?? this.store.keyProblem(key)
    return problem === undefined ? undefined : `"${this.scheme}://${this.bucket}/${key.slice(0, 200)}" ${problem}`
  }

  /** Renders each row into its staging file, uploads it and removes the local copy: the row is completed only once stored. */
  wrap(render: RenderRow): RenderRow {
    return async (request) => {
      const result = await render(request)
      try {
        const {bytes} = await this.store.put(result.output, this.keyOf(result.output))
        return {...result, output: this.urlOf(result.output), bytes}
      } finally {
        await rm(result.output, {force: true})
      }
    }
  }

  /** `--resume`: why a completed row's stored object no longer holds its output, or undefined. */
  async storedProblem(localPath: string, recordedBytes: number | undefined): Promise<string | undefined> {
    const size = await this.store.size(this.keyOf(localPath))
    if (size === undefined) return 'is gone'
    if (recordedBytes !== undefined && size !== recordedBytes) return `is ${size} bytes, not the ${recordedBytes} recorded`
    return undefined
  }
}

/** The local folder that mirrors a bucket: rows render there before their upload, and the manifests live there. */
export function stagingFolder(cwd: string, scheme: string, bucket: string): string {
  return resolve(cwd, 'renders', scheme, bucket)
}

/**
 * A URL's store, bucket and key path (`s3://bucket/videos/{index}.mp4`): the bucket fixed and a
 * valid bucket name, the path a plain relative key. Without a store for the scheme: INVALID_FLAG
 * naming what to install.
 */
export function remoteLocation(url: string, stores: readonly OutputStore[], field: string): {scheme: string; bucket: string; path: string; store: OutputStore} {
  const match = URL_TEMPLATE.exec(url)
  const scheme = (match?.[1] ?? url.split(':')[0]).toLowerCase()
  const store = stores.find((candidate) => candidate.scheme.toLowerCase() === scheme)
  if (!store) {
    const install = scheme === 's3' ? `install the serverless companion, which brings the S3 upload: ${companionInstallHint(LAMBDA_COMPANION, 'engine')}` : `install a plugin that provides ${scheme}:// outputs (an ${OUTPUT_STORES_HOOK} hook)`
    throw new EngineError('INVALID_FLAG', `${field} ${url}: no output store for ${scheme}:// is installed; ${install}, or give a local path`, {[field]: url, scheme})
  }
  if (!match) throw invalid(field, url, `is not ${scheme}://<bucket>/<key>: name the bucket, then the key, for example ${scheme}://my-bucket/videos/{index}.mp4`)
  const [, , bucket, path] = match
  if (bucket.includes('{')) throw invalid(field, url, 'takes its bucket from a row; a row may fill placeholders of the key only: name the bucket in the template')
  if (!BUCKET.test(bucket) || bucket.includes('..')) throw invalid(field, url, `names the bucket "${bucket}", which is not a bucket name (3-63 lowercase letters, digits, dots and hyphens)`)
  const keyProblem = storageKeyProblem(path)
  if (keyProblem) throw invalid(field, url, `has a key template that ${keyProblem}; write it as names separated by "/", such as videos/{index}.mp4`)
  return {scheme, bucket, path, store}
}

function invalid(field: string, url: string, reason: string): EngineError {
  return new EngineError('INVALID_FLAG', `${field} ${url} ${reason}`, {[field]: url})
}
