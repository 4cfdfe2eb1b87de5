import crypto from 'node:crypto'

/**
 * s3rver encrypts the continuation tokens of ListObjectsV2 with DES, which OpenSSL 3 (Node 22) no
 * longer provides: every listing longer than one page answered 500, so a prefix of more than 1,000
 * objects (a batch's rows) could not be listed on the local stack. The tokens only travel from
 * s3rver back to s3rver, so in this process a 'des' cipher is served by AES-128-CBC over the same
 * 8-byte key and IV, each doubled; nothing else is touched, and nothing at all where DES works.
 */
export function keepContinuationTokensWorking(): void {
  try {
    crypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8))
    return
  } catch {
    // DES is gone: stand in for it below.
  }
  const twice = (bytes: crypto.BinaryLike) => Buffer.concat([Buffer.from(bytes as Buffer), Buffer.from(bytes as Buffer)])
  const {createCipheriv, createDecipheriv} = crypto
  Object.assign(crypto, {
    createCipheriv: (algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null, options?: unknown) =>
      algorithm === 'des' ? createCipheriv('aes-128-cbc', twice(key as Buffer), twice(iv!)) : createCipheriv(algorithm, key, iv, options as never),
    createDecipheriv: (algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null, options?: unknown) =>
      algorithm === 'des' ? createDecipheriv('aes-128-cbc', twice(key as Buffer), twice(iv!)) : createDecipheriv(algorithm, key, iv, options as never),
  })
}
