import type {CheerioAPI} from 'cheerio'
import type {Element} from 'domhandler'
import ipaddr from 'ipaddr.js'
import {nonPublicReason} from '../sandbox/address-policy.js'
import {projectFile} from '../sandbox/project-file.js'
import {projectPath} from './find-missing-assets.js'
import {describeElement, isInsideTemplate} from './load-html.js'

/** A `<script src>` or stylesheet `<link>` the page may fail to load. */
export interface UnloadableResource {
  /** `missing`: a project file that is not there; `remote`: fetched from the network at render time; `refused`: an address the sandbox never reaches. */
  kind: 'missing' | 'remote' | 'refused'
  /** `<script src="…">`, `<link rel="stylesheet" href="…">`. */
  where: string
  url: string
  /** `missing`: the project path; `refused`: why. */
  detail?: string
}

/** Links checked per page: enough for any real page, bounded for hostile ones. */
const MAX_LINKS = 200

/**
 * The scripts and stylesheets of a compiled page that cannot load, or load only from the
 * network: a project file that does not exist, an http(s) URL (fetched at render time, so refused
 * with --no-network and failing offline), and a URL on a loopback or private address, which the
 * sandbox refuses. Module scripts count too; `data:` and inline code do not.
 */
export async function findUnloadableResources($: CheerioAPI, options: {pageDir: string; projectDir: string}): Promise<UnloadableResource[]> {
  const links = ($('script[src], link[href]').toArray() as Element[])
    .filter((element) => !isInsideTemplate(element, null) && (element.name === 'script' || /(^|\s)stylesheet(\s|$)/i.test(element.attribs.rel ?? '')))
    .slice(0, MAX_LINKS)
  const found: UnloadableResource[] = []
  for (const element of links) {
    const url = (element.name === 'script' ? element.attribs.src : element.attribs.href)!.trim()
    const where = `${describeElement(element).replace(/>$/, '')} ${element.name === 'script' ? 'src' : 'href'}="${url}">`
    const remote = /^(https?:)?\/\//i.test(url)
    if (remote) {
      const host = new URL(url, 'https://x.invalid').hostname.replace(/^\[|\]$/g, '')
      const refused = ipaddr.isValid(host) ? nonPublicReason(host) : host === 'localhost' || host.endsWith('.localhost') ? 'loopback' : undefined
      found.push(refused ? {kind: 'refused', where, url, detail: refused} : {kind: 'remote', where, url})
      continue
    }
    const path = projectPath(url, options)
    if (path !== undefined && (await projectFile(options.projectDir, path)).kind === 'missing') found.push({kind: 'missing', where, url, detail: path})
  }
  return found
}

/** How to vendor a remote library: the docs section that shows it. */
export const VENDOR_DOCS = 'docs/guides/compositions/assets.md#scripts-and-stylesheets'

/** The message for one resource, as lint and render give it, with the fix. */
export function unloadableMessage(resource: UnloadableResource, projectDir: string): string {
  switch (resource.kind) {
    case 'missing':
      return `${resource.where} names ${resource.detail!.slice(1)}, which does not exist in ${projectDir}: the page renders without it; add the file (for a library from npm: npm install it and point at node_modules/<package>/dist/…, see ${VENDOR_DOCS}) or fix the path`
    case 'refused':
      return `${resource.where} is on a ${resource.detail} address, which a render never loads (only --allow-private-network lets it, for compositions you trust): vendor the file into the project (see ${VENDOR_DOCS})`
    case 'remote':
      return `${resource.where} is loaded from the network at render time: fetched once through the download cache, but refused with --no-network and failing on a machine without access; vendor it into the project (for example npm install the library and point at node_modules/<package>/dist/…, see ${VENDOR_DOCS})`
  }
}
