import {createHash} from 'node:crypto'
import {readFile, stat} from 'node:fs/promises'
import {dirname, relative, resolve, sep} from 'node:path'
import type {CheerioAPI} from 'cheerio'
import type {Element} from 'domhandler'
import type {AtRule, Root} from 'postcss'
import postcss from '../vendor/postcss.js'
import {projectFile} from '../sandbox/project-file.js'
import {isInsideTemplate} from './load-html.js'
import {isRelativeUrl, rebaseCssUrls, urlRebaser} from './rebase-url.js'

/** Marks a `<style>` that holds a project stylesheet the page linked; the value is the file, relative to the page. */
export const INLINED_STYLESHEET_ATTRIBUTE = 'data-engine-stylesheet'

/** Bounds for hostile or accidental giants: a sheet above them stays a link, loaded by the browser as before. */
const MAX_SHEET_BYTES = 2 * 1024 ** 2
const MAX_TOTAL_BYTES = 8 * 1024 ** 2
const MAX_SHEETS = 64
const MAX_IMPORT_DEPTH = 8

interface InlineContext {
  pageDir: string
  projectDir: string
  /** sha256 of every stylesheet file inlined, by absolute path (the compile's source files). */
  sourceFiles: Record<string, string>
  sheets: number
  bytes: number
}

/**
 * Replaces each `<link rel="stylesheet">` to a file of the project by a `<style>` holding that
 * file, its url()s rebased onto the page's folder and its plain local `@import`s inlined the same
 * way, so that the fonts stage reads the families, custom properties and `@font-face` rules of
 * linked stylesheets as it reads inline ones, and maps their generic families. The cascade is
 * unchanged: the style takes the link's place, under the link's media. A sheet that is remote,
 * outside the project, missing, unparsable or too large stays a link. Mutates `$`.
 */
export async function inlineProjectStylesheets($: CheerioAPI, options: {pageDir: string; projectDir: string; sourceFiles: Record<string, string>}): Promise<void> {
  const context: InlineContext = {...options, sheets: 0, bytes: 0}
  const links = $('link[href]')
    .toArray()
    .filter((element) => /\bstylesheet\b/i.test(element.attribs.rel ?? '') && !/\balternate\b/i.test(element.attribs.rel ?? '') && !isInsideTemplate(element, null))
  for (const link of links as Element[]) {
    const file = await localSheet(link.attribs.href, context.pageDir, context)
    const css = file === undefined ? undefined : await readSheet(file, context, 0)
    if (file === undefined || css === undefined) continue
    const media = link.attribs.media?.trim()
    const text = media && media.toLowerCase() !== 'all' ? `@media ${media} {\n${css}\n}` : css
    const style = $('<style></style>').attr(INLINED_STYLESHEET_ATTRIBUTE, relative(context.pageDir, file).split(sep).join('/'))
    // A sheet cannot end the element it is put in.
    style.text(text.replace(/<\/(style)/gi, '<\\/$1'))
    $(link).replaceWith(style)
  }
}

/** The project file a stylesheet URL names, relative to `fromDir` (or to the project for `/x.css`). */
async function localSheet(href: string, fromDir: string, context: InlineContext): Promise<string | undefined> {
  const path = /^([^?#]*)/.exec(href.trim())![1]
  if (path === '' || (!isRelativeUrl(path) && !path.startsWith('/')) || path.startsWith('//')) return undefined
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    return undefined
  }
  const urlPath = decoded.startsWith('/') ? decoded : '/' + relative(context.projectDir, resolve(fromDir, decoded)).split(sep).join('/')
  if (urlPath.startsWith('/..')) return undefined
  const found = await projectFile(context.projectDir, urlPath)
  return found.kind === 'file' ? found.path : undefined
}

/** The sheet's CSS with url()s rebased onto the page and local imports inlined; undefined when it cannot be. */
async function readSheet(file: string, context: InlineContext, depth: number): Promise<string | undefined> {
  const size = (await stat(file)).size
  if (size > MAX_SHEET_BYTES || context.bytes + size > MAX_TOTAL_BYTES || context.sheets >= MAX_SHEETS) return undefined
  const source = await readFile(file, 'utf8')
  context.sheets++
  context.bytes += size
  let root: Root
  try {
    root = postcss.parse(source)
  } catch {
    return undefined
  }
  context.sourceFiles[file] = createHash('sha256').update(source).digest('hex')
  const imports: {rule: AtRule; url: string; conditions: string; leading: boolean}[] = []
  let leading = true
  for (const node of root.nodes) {
    const isImport = node.type === 'atrule' && node.name.toLowerCase() === 'import'
    // Browsers ignore an @import that follows other rules (only @charset and @layer may come before).
    if (!isImport && node.type !== 'comment' && !(node.type === 'atrule' && /^(?:charset|layer)$/i.test(node.name))) leading = false
    if (!isImport) continue
    const parsed = /^\s*(?:url\(\s*(['"]?)([^'")]*)\1\s*\)|(['"])(.*?)\3)\s*(.*)$/is.exec(node.params)
    if (parsed) imports.push({rule: node, url: parsed[2] ?? parsed[4], conditions: parsed[5].trim(), leading})
  }
  for (const {rule, url, conditions, leading: effective} of imports) {
    // Layers and support conditions have no inline form that keeps their meaning.
    const plain = effective && (conditions === '' || !/^(?:layer|supports)\b/i.test(conditions))
    const imported = plain && depth < MAX_IMPORT_DEPTH ? await localSheet(url, dirname(file), context) : undefined
    const css = imported === undefined ? undefined : await readSheet(imported, context, depth + 1)
    if (css === undefined) {
      if (isRelativeUrl(url)) rule.params = `url("${urlRebaser(dirname(file), context.pageDir)(url)}")${conditions === '' ? '' : ` ${conditions}`}`
      continue
    }
    rule.replaceWith(postcss.parse(conditions === '' ? css : `@media ${conditions} {\n${css}\n}`))
  }
  return rebaseOwnUrls(root, dirname(file), context.pageDir)
}

/** Rebases the url()s of the sheet's own declarations (inlined imports were rebased already). */
function rebaseOwnUrls(root: Root, fromDir: string, pageDir: string): string {
  const rebase = urlRebaser(fromDir, pageDir)
  root.walkDecls((declaration) => {
    if (declaration.source?.input === root.source?.input) declaration.value = rebaseCssUrls(declaration.value, rebase)
  })
  return root.toString()
}
