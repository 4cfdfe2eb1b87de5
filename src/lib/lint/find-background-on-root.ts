import postcss from '../vendor/postcss.js'
import type {CheerioAPI} from 'cheerio'
import type {Element} from 'domhandler'
import {isInsideTemplate, lineOf, loadHtml} from '../compose/load-html.js'
import {rewriteRootSelector} from '../compose/scope-stylesheet.js'

export interface BackgroundOnRoot {
  line?: number
  message: string
}

const BACKGROUND_PROPERTIES = new Set(['background', 'background-color', 'background-image'])
const TRANSPARENT_WORDS = new Set(['transparent', 'none', 'initial', 'unset', 'inherit', 'revert', 'revert-layer'])
const TARGETS_ROOT = /^:scope[^\s>+~]*$/

/**
 * Backgrounds set on `html`, `body` or `:root` (style rules, `style` attributes, `bgcolor`). An
 * alpha format makes the page transparent; such a background paints over that, so renders of
 * mov, webm and png-sequence call this to warn. Pass the top-level composition's source.
 */
export function findBackgroundOnRoot(html: string | CheerioAPI): BackgroundOnRoot[] {
  const $ = typeof html === 'string' ? loadHtml(html) : html
  const found: BackgroundOnRoot[] = []
  for (const style of $('style').toArray()) {
    if (isInsideTemplate(style, null) || insideHost(style)) continue
    const text = $(style).text()
    const firstLine = style.children[0]?.sourceCodeLocation?.startLine ?? lineOf(style) ?? 1
    let root
    try {
      root = postcss.parse(text)
    } catch {
      continue
    }
    root.walkRules((rule) => {
      const selector = rule.selectors.find((candidate) => TARGETS_ROOT.test(rewriteRootSelector(candidate).trim()))
      if (selector === undefined) return
      rule.each((node) => {
        if (node.type !== 'decl' || !BACKGROUND_PROPERTIES.has(node.prop.toLowerCase()) || isTransparent(node.value)) return
        found.push({
          line: firstLine + (node.source?.start?.line ?? 1) - 1,
          message: `"${selector.trim()} { ${node.prop}: ${node.value} }" paints over the transparent background of an alpha format; remove it or move it to an inner element`,
        })
      })
    })
  }
  for (const element of [$('html')[0], $('body')[0]].filter((e): e is Element => e !== undefined)) {
    const inline = element.attribs.style
    if (inline !== undefined) {
      for (const declaration of inline.split(';')) {
        const [prop, ...rest] = declaration.split(':')
        const value = rest.join(':').trim()
        if (BACKGROUND_PROPERTIES.has(prop.trim().toLowerCase()) && !isTransparent(value)) {
          found.push({
            line: lineOf(element, 'style'),
            message: `style="${inline}" on <${element.name}> sets a background that paints over the transparent background of an alpha format`,
          })
        }
      }
    }
    if (element.attribs.bgcolor !== undefined) {
      found.push({line: lineOf(element, 'bgcolor'), message: `bgcolor on <${element.name}> paints over the transparent background of an alpha format`})
    }
  }
  return found
}

function isTransparent(value: string): boolean {
  const normalized = value.trim().toLowerCase().replace(/\s*!important$/, '')
  if (normalized === '') return true
  return normalized.split(/\s+(?![^(]*\))/).every((token) => TRANSPARENT_WORDS.has(token) || hasZeroAlpha(token))
}

function hasZeroAlpha(token: string): boolean {
  if (/^#(?:[0-9a-f]{3}0|[0-9a-f]{6}00)$/.test(token)) return true
  const fn = /^(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\((.*)\)$/.exec(token)
  if (!fn) return false
  const alpha = /(?:,|\/)\s*(0+(?:\.0*)?%?)\s*$/.exec(fn[1])
  return alpha !== null
}

function insideHost(element: Element): boolean {
  for (let current = element.parent; current; current = current.parent) {
    if (current.type === 'tag' && (current as Element).attribs['data-composition-src'] !== undefined) return true
  }
  return false
}
