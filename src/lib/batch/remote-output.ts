import {rm} from 'node:fs/promises'
import {extname, join, relative, resolve, sep} from 'node:path'
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
    const match = URL_TEMPLATE.exec(template)
    const scheme = (match?.[1] ?? template.split(':')[0]).toLowerCase()
    const store = stores.find((candidate) => candidate.scheme.toLowerCase() === scheme)
    if (!store) {
      const install = scheme === 's3' ? 'install the serverless companion, which brings the S3 upload: `engine plugins install html-video-engine-lambda`' : `install a plugin that provides ${scheme}:// outputs (an ${OUTPUT_STORES_HOOK} hook)`
      throw new EngineError('INVALID_FLAG', `--output ${template}: no output store for ${scheme}:// is installed; ${install}, or give a local path`, {output: template, scheme})
    }
    if (!match) throw invalid(template, `is not ${scheme}://<bucket>/<key>: name the bucket, then the key, for example ${scheme}://my-bucket/videos/{index}.mp4`)
    const [, , bucket, keyTemplate] = match
    if (bucket.includes('{')) throw invalid(template, 'takes its bucket from a row; a row may fill placeholders of the key only: name the bucket in the template')
    if (!BUCKET.test(bucket) || bucket.includes('..')) throw invalid(template, `names the bucket "${bucket}", which is not a bucket name (3-63 lowercase letters, digits, dots and hyphens)`)
    const keyProblem = storageKeyProblem(keyTemplate)
    if (keyProblem) throw invalid(template, `has a key template that ${keyProblem}; write it as names separated by "/", such as videos/{index}.mp4`)
    // A folder of frames (png-sequence) is no one object.
    if (extname(keyTemplate) === '') throw invalid(template, 'names no file extension: a remote output is one file per row, such as videos/{index}.mp4')
    const staging = resolve(cwd, 'renders', scheme, bucket)
    return new RemoteOutput(scheme, bucket, join(staging, keyTemplate), staging, await store.open(bucket))
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

function invalid(template: string, reason: string): EngineError {
  return new EngineError('INVALID_FLAG', `--output ${template} ${reason}`, {output: template})
}
