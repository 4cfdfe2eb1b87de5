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

  export default class S3rver {
    constructor(options?: S3rverOptions)
    configureBuckets(): Promise<void>
    callback(): (request: IncomingMessage, response: ServerResponse) => void
  }
}
