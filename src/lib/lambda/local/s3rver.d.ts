// s3rver 3 ships no types; this covers the part the local stack uses.
declare module 's3rver' {
  import type {IncomingMessage, ServerResponse} from 'node:http'

  export interface S3rverOptions {
    directory?: string
    silent?: boolean
    vhostBuckets?: boolean
    resetOnClose?: boolean
    allowMismatchedSignatures?: boolean
    configureBuckets?: {name: string}[]
  }

  /** The object a PUT hands to the store. */
  export interface S3rverObject {
    bucket: string
    key: string
    content: Buffer | NodeJS.ReadableStream
    metadata: Record<string, string>
  }

  /** The filesystem store's methods that the local stack replaces or calls. */
  export interface S3rverStore {
    getResourcePath(bucket: string, key: string, resource: string): string
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>
    putObject(object: S3rverObject): Promise<{size: number; md5: string}>
  }

  export default class S3rver {
    constructor(options?: S3rverOptions)
    readonly store: S3rverStore
    configureBuckets(): Promise<void>
    callback(): (request: IncomingMessage, response: ServerResponse) => void
  }
}
