import {posix, relative, sep} from 'node:path'

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/

/** True for a URL that is resolved against the document's base: not absolute, rooted, or a fragment. */
export function isRelativeUrl(url: string): boolean {
  const trimmed = url.trim()
  return trimmed !== '' && !SCHEME.test(trimmed) && !trimmed.startsWith('/') && !trimmed.startsWith('#')
}

export type UrlRebaser = (url: string) => string

/**
 * Rewrites URLs written relative to `fromDir` so they work from `rootDir`, the directory the
 * compiled page is loaded from. Query and fragment are kept as written.
 */
export function urlRebaser(fromDir: string, rootDir: string): UrlRebaser {
  const prefix = relative(rootDir, fromDir).split(sep).join('/')
  return (url) => {
    if (prefix === '' || !isRelativeUrl(url)) return url
    const trimmed = url.trim()
    const split = /^([^?#]*)(.*)$/.exec(trimmed)!
    const rebased = posix.normalize(posix.join(prefix, split[1]))
    return rebased + split[2]
  }
}

const CSS_URL = /url\(\s*(['"]?)([^'")]*)\1\s*\)/g

/** Rewrites every `url(...)` in a CSS value or declaration block. */
export function rebaseCssUrls(css: string, rebase: UrlRebaser): string {
  return css.replace(CSS_URL, (match, quote: string, url: string) => (isRelativeUrl(url) ? `url(${quote}${rebase(url)}${quote})` : match))
}
