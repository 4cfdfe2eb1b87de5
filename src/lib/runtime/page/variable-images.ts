import {INSTANCE_ATTRIBUTE} from '../../compose/runtime-instance.js'
import type {RuntimeConfig} from '../runtime-config.js'
import type {InstanceScope} from './instance-scope.js'

/** `<img data-var-src="logo">` shows the image variable `logo` of the composition it belongs to. */
export const VARIABLE_SRC_ATTRIBUTE = 'data-var-src'

/**
 * Image variables in the page: `data-var-src` elements get their variable's URL as `src` as soon as
 * the document is parsed (before `load`, so the load waits for them), and the root's image values
 * are decoded before the first frame, so a script that draws one (a canvas, a CSS background)
 * finds it in the cache.
 */
export class VariableImages {
  /** Held so the decoded images stay in the memory cache for the whole render. */
  private readonly decoded: HTMLImageElement[] = []

  constructor(
    private readonly win: Window & typeof globalThis,
    private readonly config: RuntimeConfig,
    private readonly scope: InstanceScope,
  ) {}

  install(): void {
    const doc = this.win.document
    if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', () => this.applySources(), {once: true})
    else this.applySources()
  }

  /** Sets `src` from the variable of the element's own composition (a sub-composition instance's, inside its host). */
  applySources(): void {
    for (const element of Array.from(this.win.document.querySelectorAll<HTMLElement>(`[${VARIABLE_SRC_ATTRIBUTE}]`))) {
      const id = element.getAttribute(VARIABLE_SRC_ATTRIBUTE)!
      const host = element.closest(`[${INSTANCE_ATTRIBUTE}]`)
      const value = this.scope.variables(host?.getAttribute(INSTANCE_ATTRIBUTE) ?? undefined)[id]
      if (typeof value === 'string' && value !== '' && element.getAttribute('src') !== value) element.setAttribute('src', value)
    }
  }

  /** Decodes every root image value; one that fails is left to the page (preflight checked it could load). */
  async preload(): Promise<void> {
    await Promise.all(
      (this.config.images ?? []).map(async (url) => {
        const image = new this.win.Image()
        image.src = url
        this.decoded.push(image)
        await image.decode().catch(() => {})
      }),
    )
  }
}
