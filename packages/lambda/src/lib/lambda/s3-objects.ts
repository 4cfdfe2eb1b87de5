import {createReadStream, createWriteStream} from 'node:fs'
import {stat} from 'node:fs/promises'
import {dirname} from 'node:path'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3'
import {readLines} from 'html-video-engine/internal/lib/batch/rows/read-lines.js'
import {MULTIPART_THRESHOLD_BYTES, uploadInParts, type ObjectHeaders} from './multipart-upload.js'
import {makeDirectory} from 'html-video-engine/internal/lib/files/make-directory.js'

/** One bucket, seen through the handful of operations the stack needs. */
export class BucketObjects {
  constructor(
    readonly s3: S3Client,
    readonly bucketName: string,
  ) {}

  async putJson(key: string, value: unknown): Promise<void> {
    await this.s3.send(new PutObjectCommand({Bucket: this.bucketName, Key: key, Body: JSON.stringify(value), ContentType: 'application/json'}))
  }

  /** The parsed object, or undefined when there is no such key. */
  async getJson<T>(key: string): Promise<T | undefined> {
    try {
      const response = await this.s3.send(new GetObjectCommand({Bucket: this.bucketName, Key: key}))
      return JSON.parse(await response.Body!.transformToString('utf8')) as T
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadObjectCommand({Bucket: this.bucketName, Key: key}))
      return true
    } catch (error) {
      if (isMissing(error)) return false
      throw error
    }
  }

  /** Large files (outputs, the function bundle) go up in parts; see multipart-upload.ts. */
  /** `headers`: a render output's Content-Disposition and tags (see outputObjectHeaders). */
  async uploadFile(key: string, path: string, contentType?: string, headers: ObjectHeaders = {}): Promise<number> {
    const {size} = await stat(path)
    if (size >= MULTIPART_THRESHOLD_BYTES) return uploadInParts(this.s3, {bucketName: this.bucketName, key, path, contentType, headers})
    await this.s3.send(
      new PutObjectCommand({Bucket: this.bucketName, Key: key, Body: createReadStream(path), ContentLength: size, ContentType: contentType, ...headers}),
    )
    return size
  }

  async downloadFile(key: string, path: string): Promise<void> {
    const response = await this.s3.send(new GetObjectCommand({Bucket: this.bucketName, Key: key}))
    await makeDirectory(dirname(path))
    await pipeline(response.Body as Readable, createWriteStream(path))
  }

  /** The lines of an object as a stream (a JSON Lines file of any size); undefined when there is no such key. */
  async lines(key: string): Promise<AsyncGenerator<string> | undefined> {
    try {
      const response = await this.s3.send(new GetObjectCommand({Bucket: this.bucketName, Key: key}))
      return readLines(response.Body as Readable)
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  /** Up to `max` keys under a prefix, in key order: a sample, without listing everything. */
  async firstKeys(prefix: string, max: number): Promise<string[]> {
    const page = await this.s3.send(new ListObjectsV2Command({Bucket: this.bucketName, Prefix: prefix, MaxKeys: max}))
    return (page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []))
  }

  async listKeys(prefix: string): Promise<string[]> {
    const keys: string[] = []
    let token: string | undefined
    do {
      const page = await this.s3.send(new ListObjectsV2Command({Bucket: this.bucketName, Prefix: prefix, ContinuationToken: token}))
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key)
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
    return keys
  }

  /** The "folders" directly under a prefix (`sites/<siteId>/`, say), from a delimited listing. */
  async listPrefixes(prefix: string): Promise<string[]> {
    const prefixes: string[] = []
    let token: string | undefined
    do {
      const page = await this.s3.send(new ListObjectsV2Command({Bucket: this.bucketName, Prefix: prefix, Delimiter: '/', ContinuationToken: token}))
      for (const common of page.CommonPrefixes ?? []) if (common.Prefix) prefixes.push(common.Prefix)
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
    return prefixes
  }

  async deleteKeys(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000).map((Key) => ({Key}))
      await this.s3.send(new DeleteObjectsCommand({Bucket: this.bucketName, Delete: {Objects: batch, Quiet: true}}))
    }
  }
}

export function isMissing(error: unknown): boolean {
  const name = (error as {name?: string})?.name
  return name === 'NoSuchKey' || name === 'NotFound' || (error as {$metadata?: {httpStatusCode?: number}})?.$metadata?.httpStatusCode === 404
}
