import type {IncomingMessage, ServerResponse} from 'node:http'
import type {S3rverStore} from 's3rver'

/**
 * S3 stores the tags a PutObject names in `x-amz-tagging` (`key=value&…`) with the object;
 * s3rver drops that header, so an output rendered with --delete-after would read back untagged.
 * The request's tags are noted by bucket and key before s3rver handles it, and written as the
 * object's tagging subresource in the same store call that writes the object, so a
 * GetObjectTagging after the PUT's answer sees them; tags S3 would refuse (other characters, too
 * many, too long) are refused with InvalidTag, as S3 does. A multipart upload's tags are not kept.
 */
export function keepTagsOfPuts(store: S3rverStore): (request: IncomingMessage, response: ServerResponse) => string | undefined {
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
  return (request, response) => {
    const header = request.headers['x-amz-tagging']
    if (request.method !== 'PUT' || typeof header !== 'string') return
    const url = new URL(request.url ?? '/', 'http://local')
    // A plain PutObject (the SDK adds `x-id=PutObject`), not a part, a subresource or a copy.
    if ([...url.searchParams.keys()].some((name) => name !== 'x-id') || request.headers['x-amz-copy-source']) return
    const [, bucket, ...key] = url.pathname.split('/')
    if (!bucket || key.length === 0) return
    const problem = tagProblem(header)
    if (problem) return problem
    const at = `${decodeURIComponent(bucket)}/${key.map(decodeURIComponent).join('/')}`
    pending.set(at, header)
    // A PUT s3rver refused (no such bucket, a bad request) never reaches the store: nothing is kept for it.
    response.once('close', () => {
      if (pending.get(at) === header) pending.delete(at)
    })
    return undefined
  }
}

/** S3's tag rules: at most 10 tags, keys of 1-128 and values of 0-256 letters, digits, spaces and `_ . : / = + - @`. */
function tagProblem(header: string): string | undefined {
  const tags = [...new URLSearchParams(header)]
  if (tags.length > 10) return `Object tags cannot be greater than 10 (${tags.length} given)`
  const allowed = /^[\p{L}\p{N}\p{Zs}_.:/=+\-@]*$/u
  for (const [key, value] of tags) {
    if (key.length < 1 || key.length > 128 || !allowed.test(key)) return `The TagKey you have provided is invalid: ${JSON.stringify(key.slice(0, 130))}`
    if (value.length > 256 || !allowed.test(value)) return `The TagValue you have provided is invalid: ${JSON.stringify(value.slice(0, 260))}`
  }
  return undefined
}

function taggingXml(header: string): string {
  const entities: Record<string, string> = {'<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;'}
  const escape = (text: string) => text.replace(/[<>&"']/g, (character) => entities[character]!)
  const tags = [...new URLSearchParams(header)].map(([key, value]) => `<Tag><Key>${escape(key)}</Key><Value>${escape(value)}</Value></Tag>`)
  return `<Tagging><TagSet>${tags.join('')}</TagSet></Tagging>`
}
