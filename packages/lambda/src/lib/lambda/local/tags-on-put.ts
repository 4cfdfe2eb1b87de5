import type {IncomingMessage} from 'node:http'
import type {S3rverStore} from 's3rver'

/**
 * S3 stores the tags a PutObject names in `x-amz-tagging` (`key=value&…`) with the object;
 * s3rver drops that header, so an output rendered with --delete-after would read back untagged.
 * The request's tags are noted by bucket and key before s3rver handles it, and written as the
 * object's tagging subresource in the same store call that writes the object, so a
 * GetObjectTagging after the PUT's answer sees them. A multipart upload's tags are not kept.
 */
export function keepTagsOfPuts(store: S3rverStore): (request: IncomingMessage) => void {
  const pending = new Map<string, string>()
  const putObject = store.putObject.bind(store)
  store.putObject = async (object) => {
    const result = await putObject(object)
    const tagging = pending.get(`${object.bucket}/${object.key}`)
    if (tagging !== undefined) {
      pending.delete(`${object.bucket}/${object.key}`)
      await store.putSubresource(object.bucket, object.key, {type: 'tagging', toXML: () => taggingXml(tagging)})
    }
    return result
  }
  return (request) => {
    const header = request.headers['x-amz-tagging']
    if (request.method !== 'PUT' || typeof header !== 'string') return
    const url = new URL(request.url ?? '/', 'http://local')
    // A plain PutObject (the SDK adds `x-id=PutObject`), not a part, a subresource or a copy.
    if ([...url.searchParams.keys()].some((name) => name !== 'x-id') || request.headers['x-amz-copy-source']) return
    const [, bucket, ...key] = url.pathname.split('/')
    if (!bucket || key.length === 0) return
    pending.set(`${decodeURIComponent(bucket)}/${key.map(decodeURIComponent).join('/')}`, header)
  }
}

function taggingXml(header: string): string {
  const escape = (text: string) => text.replace(/[<>&"']/g, (character) => `&#${character.charCodeAt(0)};`)
  const tags = [...new URLSearchParams(header)].map(([key, value]) => `<Tag><Key>${escape(key)}</Key><Value>${escape(value)}</Value></Tag>`)
  return `<Tagging><TagSet>${tags.join('')}</TagSet></Tagging>`
}
