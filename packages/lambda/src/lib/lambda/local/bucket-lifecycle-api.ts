import {randomBytes} from 'node:crypto'
import {readFile, rm, writeFile} from 'node:fs/promises'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {XMLBuilder, XMLParser} from 'fast-xml-parser'
import type {S3rverStore} from 's3rver'
import {readBody} from './http-body.js'
import {sendRefusal, type Refusal} from './request-guard.js'

/** Far above any real configuration (1,000 rules of a few hundred bytes). */
const MAX_BODY_BYTES = 1024 * 1024
const MAX_ID_LENGTH = 255
/** What S3 answers for a configuration written without the header. */
const DEFAULT_TRANSITION_MINIMUM = 'all_storage_classes_128K'
const ACTIONS = ['Expiration', 'Transition', 'NoncurrentVersionExpiration', 'NoncurrentVersionTransition', 'AbortIncompleteMultipartUpload'] as const
const NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/'

type Rule = Record<string, unknown>

const parser = new XMLParser({ignoreAttributes: true, parseTagValue: false, trimValues: true, isArray: (name) => ['Rule', 'Transition', 'NoncurrentVersionTransition', 'Tag'].includes(name)})
const builder = new XMLBuilder({ignoreAttributes: false, attributeNamePrefix: '@'})

/**
 * `?lifecycle` on a bucket (Get/Put/DeleteBucketLifecycleConfiguration), which s3rver answers
 * NotImplemented, answered as S3 does so that deploy's real SDK calls can be tested: no
 * configuration is NoSuchLifecycleConfiguration (404); a PUT replaces the whole configuration,
 * after the checks S3 makes (well-formed XML of Rules, each with a status and an action, IDs of at
 * most 255 characters and unique; a rule without an ID gets one); DELETE removes it (204). Rules
 * are kept, not enforced: nothing on this stack expires. The configuration is a file beside the
 * bucket's CORS configuration, where s3rver keeps bucket settings.
 */
export class LocalBucketLifecycle {
  constructor(private readonly store: S3rverStore) {}

  static matches(request: IncomingMessage): boolean {
    const url = new URL(request.url ?? '/', 'http://local')
    return url.searchParams.has('lifecycle') && /^\/[^/]+\/?$/.test(url.pathname)
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const bucket = decodeURIComponent(new URL(request.url ?? '/', 'http://local').pathname.split('/')[1]!)
    const refuse = (refusal: Refusal) => sendRefusal(request, response, refusal)
    if (!(await this.store.getBucket(bucket))) {
      refuse({status: 404, code: 'NoSuchBucket', message: 'The specified bucket does not exist'})
      return
    }
    const file = this.store.getResourcePath(bucket, undefined, 'lifecycle.json')
    switch (request.method) {
      case 'GET': {
        const stored = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined
          throw error
        })
        if (stored === undefined) {
          refuse({status: 404, code: 'NoSuchLifecycleConfiguration', message: 'The lifecycle configuration does not exist'})
          return
        }
        const {rules, transitionDefault} = JSON.parse(stored) as {rules: Rule[]; transitionDefault: string}
        const body = `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({LifecycleConfiguration: {'@xmlns': NAMESPACE, Rule: rules}})}`
        response.writeHead(200, {'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body), 'x-amz-transition-default-minimum-object-size': transitionDefault})
        response.end(body)
        return
      }
      case 'PUT': {
        const body = await readBody(request, MAX_BODY_BYTES)
        const checked = body === undefined ? {refusal: malformed('the configuration is over 1 MiB')} : checkConfiguration(body.toString('utf8'))
        if ('refusal' in checked) {
          refuse(checked.refusal)
          return
        }
        const header = request.headers['x-amz-transition-default-minimum-object-size']
        const transitionDefault = typeof header === 'string' && header !== '' ? header : DEFAULT_TRANSITION_MINIMUM
        await writeFile(file, JSON.stringify({rules: checked.rules, transitionDefault}))
        response.writeHead(200, {'Content-Length': 0, 'x-amz-transition-default-minimum-object-size': transitionDefault})
        response.end()
        return
      }
      case 'DELETE':
        await rm(file, {force: true})
        response.writeHead(204)
        response.end()
        return
      default:
        refuse({status: 405, code: 'MethodNotAllowed', message: 'The specified method is not allowed against this resource.'})
    }
  }
}

function malformed(detail: string): Refusal {
  return {status: 400, code: 'MalformedXML', message: `The XML you provided was not well-formed or did not validate against our published schema (${detail})`}
}

/** The rules of a PUT's body, or the refusal S3 answers it with. */
export function checkConfiguration(xml: string): {rules: Rule[]} | {refusal: Refusal} {
  let document: Record<string, unknown>
  try {
    document = parser.parse(xml, true) as Record<string, unknown>
  } catch (error) {
    return {refusal: malformed((error as Error).message)}
  }
  const configuration = document.LifecycleConfiguration as {Rule?: Rule[]} | undefined
  if (!configuration || typeof configuration !== 'object' || !Array.isArray(configuration.Rule) || configuration.Rule.length === 0) {
    return {refusal: malformed('a LifecycleConfiguration holds one or more Rule elements')}
  }
  const ids = new Set<string>()
  const rules: Rule[] = []
  for (const rule of configuration.Rule) {
    if (typeof rule !== 'object' || rule === null) return {refusal: malformed('a Rule is empty')}
    if (rule.Status !== 'Enabled' && rule.Status !== 'Disabled') return {refusal: malformed('a Rule\'s Status is Enabled or Disabled')}
    if ('Prefix' in rule && 'Filter' in rule) return {refusal: malformed('a Rule has a Prefix or a Filter, not both')}
    if (!ACTIONS.some((action) => action in rule)) return {refusal: {status: 400, code: 'InvalidRequest', message: 'At least one action needs to be specified in a rule'}}
    const id = typeof rule.ID === 'string' && rule.ID !== '' ? rule.ID : randomBytes(24).toString('base64url')
    if (id.length > MAX_ID_LENGTH) return {refusal: {status: 400, code: 'InvalidArgument', message: `ID length should not exceed allowed limit of ${MAX_ID_LENGTH}`}}
    if (ids.has(id)) return {refusal: {status: 400, code: 'InvalidArgument', message: 'Rule ID must be unique. Found same ID for more than one rule'}}
    ids.add(id)
    // ID first, as S3 lists it.
    rules.push({ID: id, ...Object.fromEntries(Object.entries(rule).filter(([name]) => name !== 'ID'))})
  }
  return {rules}
}
