import {relative, sep} from 'node:path'
import type {CheerioAPI} from 'cheerio'
import type {Element} from 'domhandler'
import postcss from '../vendor/postcss.js'
import {PAGE_ORIGIN} from '../sandbox/page-origin.js'
import {projectFile} from '../sandbox/project-file.js'
import {describeElement, isInsideTemplate} from './load-html.js'
import {isRelativeUrl} from './rebase-url.js'

/** An image or font file the page names that is not in the project: it would render blank, or in another font, without a word. */
export interface MissingAsset {
  /** Where the page names it: `<img id="logo">`, `the poster of <video>`, `a url() in <style>`. */
  where: string
  url: string
  /** The project path it resolves to, `/assets/logo.png`. */
  path: string
}

/** URLs checked per page: enough for any real page, bounded for hostile ones. */
const MAX_URLS = 500
const CSS_URL = /url\(\s*(['"]?)([^'")]*)\1\s*\)/g

/**
 * The project files a compiled page names as images or fonts that do not exist: `<img src>` and
 * `srcset`, `<source srcset>`, `<video poster>`, SVG `<image href>`, and `url()`s in its styles
 * (`@font-face` sources included). Relative URLs resolve as the browser resolves them against the
 * page's folder; remote and data URLs are not files of the project.
 */
export async function findMissingAssets($: CheerioAPI, options: {pageDir: string; projectDir: string}): Promise<MissingAsset[]> {
  const named: Omit<MissingAsset, 'path'>[] = []
  const add = (where: string, url: string | undefined) => {
    if (url !== undefined && named.length < MAX_URLS) named.push({where, url: url.trim()})
  }
  for (const element of $('img, source, video, image, input[type="image" i]').toArray() as Element[]) {
    if (isInsideTemplate(element, null)) continue
    const attribs = element.attribs
    const what = describeElement(element)
    // A <source> of a <video> or <audio> is media: the media stage refuses a missing one.
    if (element.name === 'img' || element.name === 'input') add(what, attribs.src)
    for (const candidate of (attribs.srcset ?? '').split(',')) add(`the srcset of ${what}`, candidate.trim().split(/\s+/)[0] || undefined)
    if (element.name === 'video') add(`the poster of ${what}`, attribs.poster)
    if (element.name === 'image') add(what, attribs.href ?? attribs['xlink:href'])
  }
  $('style').each((_, element) => {
    try {
      postcss.parse($(element).text()).walkDecls((declaration) => {
        const fontFace = declaration.parent?.type === 'atrule' && declaration.parent.name.toLowerCase() === 'font-face'
        const where = fontFace ? `the src of an @font-face rule in <style>` : `a url() in <style> (${declaration.prop})`
        for (const match of declaration.value.matchAll(CSS_URL)) add(where, match[2])
      })
    } catch {
      // An unparsable sheet is the browser's to skip.
    }
  })
  $('[style]').each((_, element) => {
    for (const match of ((element as Element).attribs.style ?? '').matchAll(CSS_URL)) add(`a url() in the style attribute of ${describeElement(element as Element)}`, match[2])
  })
  const missing: MissingAsset[] = []
  const checked = new Set<string>()
  for (const asset of named) {
    const path = projectPath(asset.url, options)
    if (path === undefined || checked.has(path)) continue
    checked.add(path)
    if ((await projectFile(options.projectDir, path)).kind === 'missing') missing.push({...asset, path})
  }
  return missing
}

/**
 * The project path a page URL names, resolved as the browser resolves it against the page's
 * folder on the page origin (so `..` stops at the project), or undefined for a URL that is not a
 * project file (remote, data, fragment, another scheme).
 */
export function projectPath(url: string, options: {pageDir: string; projectDir: string}): string | undefined {
  const path = /^([^?#]*)/.exec(url)![1]
  if (path === '' || path.startsWith('//') || (!isRelativeUrl(path) && !path.startsWith('/'))) return undefined
  const folder = relative(options.projectDir, options.pageDir).split(sep).filter(Boolean)
  const base = new URL([...folder.map(encodeURIComponent), ''].join('/'), PAGE_ORIGIN + '/')
  try {
    return decodeURIComponent(new URL(path, base).pathname)
  } catch {
    return undefined
  }
}

/** The warning for one missing asset, as render and lint give it. */
export function missingAssetMessage(asset: MissingAsset, projectDir: string): string {
  return `${asset.where} names ${asset.url}, but ${asset.path.slice(1)} does not exist in ${projectDir}: it renders blank; add the file or fix the path (relative paths resolve against the composition file)`
}
