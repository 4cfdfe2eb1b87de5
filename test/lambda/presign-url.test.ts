import {describe, expect, it} from 'vitest'
import {encodeKeyPath, presignGetUrl} from '../../src/lib/lambda/presign-url.js'

// The example of S3's documentation, "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)".
const EXAMPLE = {
  origin: 'https://examplebucket.s3.amazonaws.com',
  path: '/test.txt',
  region: 'us-east-1',
  credentials: {accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'},
  expiresInSeconds: 86400,
  now: new Date('2013-05-24T00:00:00Z'),
}

describe('presigned output URLs', () => {
  it('signs the S3 documentation example to the documented URL', () => {
    expect(presignGetUrl(EXAMPLE)).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    )
  })

  it('carries temporary credentials\' session token, signed with the rest', () => {
    const url = new URL(presignGetUrl({...EXAMPLE, credentials: {...EXAMPLE.credentials, sessionToken: 'token/with+chars='}}))
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('token/with+chars=')
    expect(url.searchParams.get('X-Amz-Signature')).not.toBe('aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404')
  })

  it('encodes each segment of a key and keeps its slashes', () => {
    expect(encodeKeyPath("out/a b/ünï(1)*.mp4")).toBe('out/a%20b/%C3%BCn%C3%AF%281%29%2A.mp4')
  })
})
