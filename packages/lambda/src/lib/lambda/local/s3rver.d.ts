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
    getResourcePath(bucket: string, key: string | undefined, resource: string): string
    /** The bucket, or null when there is none. */
    getBucket(bucket: string): Promise<unknown>
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>
    putObject(object: S3rverObject): Promise<{size: number; md5: string}>
    putPart(bucket: string, uploadId: string, partNumber: number, content: NodeJS.ReadableStream): Promise<{size: number; md5: string}>
    putObjectMultipart(bucket: string, uploadId: string, parts: {number: number; etag: string}[]): Promise<{size: number; md5: string}>
    listObjects(bucket: string, options: Record<string, unknown>): Promise<unknown>
    putSubresource(bucket: string, key: string, resource: {type: string; toXML(): string}): Promise<void>
  }

  export default class S3rver {
    constructor(options?: S3rverOptions)
    readonly store: S3rverStore
    configureBuckets(): Promise<void>
    callback(): (request: IncomingMessage, response: ServerResponse) => void
  }
}

declare module 's3rver/lib/models/error.js' {
  /** s3rver's error type: its code picks the HTTP status and the XML error body. */
  export default class S3Error extends Error {
    constructor(code: string, message: string, detail?: Record<string, string>)
  }
}

declare module 's3rver/lib/models/account.js' {
  /** s3rver's account registry: requests name a key id it must know. */
  export default class AWSAccount {
    static DUMMY_ACCOUNT: AWSAccount
    createKeyPair(accessKeyId: string, secretAccessKey: string): void
  }
}
