import type {AtRule, ChildNode} from 'postcss'
import postcss from '../vendor/postcss.js'
import {INSTANCE_ATTRIBUTE} from './runtime-instance.js'
import {isRelativeUrl, rebaseCssUrls, type UrlRebaser} from './rebase-url.js'

// At-rules that define global names or must open a stylesheet; @scope cannot hold them, so they stay outside.
const GLOBAL_AT_RULES = new Set([
  'charset',
  'import',
  'namespace',
  'font-face',
  'keyframes',
  '-webkit-keyframes',
  'property',
  'counter-style',
  'font-feature-values',
  'font-palette-values',
  'page',
])

const ROOT_SELECTOR = /^(?:html|body|:root)(?![\w-])/i
const MORE_ROOT_SELECTORS = /^\s*>?\s*(?:html|body|:root)(?![\w-])/i

/**
 * Scopes a sub-composition stylesheet to one instance: its rules go inside
 * `@scope ([data-engine-instance="key"])`, and selectors starting with `html`, `body` or `:root`
 * start with `:scope` instead (the host element). Relative `url()`s are rebased to the root file.
 */
export function scopeStylesheet(css: string, instanceKey: string, rebase: UrlRebaser): string {
  const scopeParams = `([${INSTANCE_ATTRIBUTE}="${instanceKey}"])`
  let root
  try {
    root = postcss.parse(css)
  } catch {
    // Unparseable CSS is still scoped; the browser recovers from errors rule by rule.
    return `@scope ${scopeParams} {\n${rebaseCssUrls(css, rebase)}\n}`
  }
  root.walkDecls((declaration) => {
    declaration.value = rebaseCssUrls(declaration.value, rebase)
  })
  root.walkAtRules('import', (rule) => {
    rule.params = rule.params.replace(/^(['"])(.*)\1/, (match, quote: string, url: string) =>
      isRelativeUrl(url) ? `${quote}${rebase(url)}${quote}` : match,
    )
    rule.params = rebaseCssUrls(rule.params, rebase)
  })
  const global: ChildNode[] = []
  const scoped: ChildNode[] = []
  for (const node of root.nodes) {
    const isGlobal = node.type === 'atrule' && (GLOBAL_AT_RULES.has(node.name.toLowerCase()) || isLayerStatement(node))
    ;(isGlobal ? global : scoped).push(node)
  }
  const scope = postcss.atRule({name: 'scope', params: scopeParams, nodes: []})
  // Detached first: appending a node still in the root removes it from there one by one, which is
  // quadratic in the number of rules (a 1 MB stylesheet took 3.2 s, 4 MB 36 s).
  root.removeAll()
  scope.append(scoped)
  scope.walkRules((rule) => {
    rule.selectors = rule.selectors.map(rewriteRootSelector)
  })
  return [...global.map(String), scope.toString()].join('\n')
}

function isLayerStatement(rule: AtRule): boolean {
  return rule.name.toLowerCase() === 'layer' && rule.nodes === undefined
}

/** `html`, `body`, `:root`, `html body`, `html > body`: all mean the instance's host, `:scope`. */
export function rewriteRootSelector(selector: string): string {
  const trimmed = selector.trim()
  if (!ROOT_SELECTOR.test(trimmed)) return selector
  let rest = trimmed.replace(ROOT_SELECTOR, '')
  for (let more = MORE_ROOT_SELECTORS.exec(rest); more; more = MORE_ROOT_SELECTORS.exec(rest)) rest = rest.slice(more[0].length)
  return `:scope${rest}`
}
