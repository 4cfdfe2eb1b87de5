import type {Element} from 'domhandler'

const CLASSIC_SCRIPT_TYPES = new Set(['', 'text/javascript', 'application/javascript', 'text/ecmascript', 'application/ecmascript'])

/** An inline classic script: the only kind compile can wrap (module scripts and data blocks are left alone). */
export function isInlineClassicScript(element: Element): boolean {
  const type = (element.attribs.type ?? '').trim().toLowerCase()
  return element.attribs.src === undefined && CLASSIC_SCRIPT_TYPES.has(type)
}

/**
 * Runs a sub-composition script through the page runtime so that `__engine` inside it is the
 * instance's own reader. The newline before `}` keeps a trailing `//` comment from eating it.
 */
export function scopeScript(code: string, instanceKey: string): string {
  return `window.__engine.__runScoped(${JSON.stringify(instanceKey)}, function (__engine) {\n${code}\n});`
}
