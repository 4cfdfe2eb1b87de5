import {EngineError} from '../errors/engine-error.js'
import type {FontFallbackRecord, FontFailureRecord, PageFontReport} from './page/page-fonts.js'
import {installableInstead, type FamilySubstitute} from './family-substitutes.js'
import type {FamilyResolution} from './resolve-fonts.js'

export interface FontFinding {
  /** `font-substituted` is information (a family drawn on purpose with its stand-in), the others are warnings. */
  code: 'font-fallback' | 'font-url-unreadable' | 'font-substituted'
  message: string
  family?: string
  level?: 'info'
}

/** What compile resolved, as the page-time check needs it. */
export interface CompiledFontFindings {
  families: readonly FamilyResolution[]
  findings: readonly FontFinding[]
}

/** A family drawn on purpose with its bundled stand-in: told once, as information. */
export function substitutionFinding(family: string, substitute: FamilySubstitute): FontFinding {
  return {
    code: 'font-substituted',
    level: 'info',
    family,
    message: `"${family}" is drawn with ${substitute.family} (${substitute.why}); name an installed family or add an @font-face rule to draw another`,
  }
}

/**
 * How to draw a family engine does not have. A known proprietary one cannot be installed: the fix
 * names an open family to use instead, never `engine fonts add` of the proprietary name.
 */
export function missingFamilyFix(family: string): string {
  const instead = installableInstead(family)
  // `-webkit-…`, `.SF NS Text`: names a browser or an operating system gives its own faces.
  if (/^[-.]/.test(family.trim())) {
    return `Fix: "${family}" names a browser's or system's own face, which no one can install; name an open family (\`engine fonts list\` shows those served), or an @font-face rule pointing at a font file you may use`
  }
  if (instead !== undefined) {
    return `Fix: "${family}" is a proprietary font engine cannot install; name an open family such as "${instead}" instead (\`engine fonts add "${instead}"\` if it is not bundled), or an @font-face rule pointing at a font file you may use`
  }
  return `Fix: \`engine fonts add "${family}"\` (needs the npm registry once), or an @font-face rule pointing at the font file`
}

/** `declared`: the composition's own @font-face rule names the family, so its file is what failed. */
export function fallbackMessage(record: FontFallbackRecord, declared = false): string {
  const face = `"${record.family}" ${record.weight}${record.style === 'normal' ? '' : ` ${record.style}`}`
  const where = `${record.element} "${record.excerpt}"`
  switch (record.reason) {
    case 'generic':
      return `${where} is drawn with the generic family ${record.family}, set by a script or a linked stylesheet where engine cannot map it to its fixed face, so the host's fonts decide it. Fix: name a family (for example "Noto Sans"), or set it in a <style> element or style attribute`
    case 'missing-glyphs':
      return (
        `font ${face} has no glyphs for ${record.characters!.map((character) => JSON.stringify(character)).join(' ')} in ${where}: those characters fall back to another font. ` +
        `Fix: a family that covers them (bundled Inter, Roboto and Noto Sans cover Latin, Cyrillic, Greek and Vietnamese; \`engine fonts list\` shows the subsets of each), or an @font-face rule for a font that has them`
      )
    case 'not-available':
      return declared
        ? `font ${face} is not available to the page, so ${where} falls back to another font: the composition's @font-face rule for it did not load. Fix: the file its src names (an asset-missing warning names a missing one), or a src that points at a font file of the project`
        : `font ${face} is not available to the page, so ${where} falls back to another font. ${missingFamilyFix(record.family)}`
  }
}

/**
 * The page's fallbacks as findings, leaving out families compile already reported as missing, and
 * the stand-ins its text is drawn with that compile did not report (a family a script set).
 */
export function pageFontFindings(report: PageFontReport, compiled: CompiledFontFindings): FontFinding[] {
  const reported = new Set(compiled.findings.map((finding) => finding.family?.toLowerCase()).filter(Boolean))
  const declared = new Set(compiled.families.flatMap((family) => (family.source === 'project' ? [family.family.toLowerCase()] : [])))
  const fallbacks: FontFinding[] = report.fallbacks
    .filter((record) => !(record.reason === 'not-available' && reported.has(record.family.toLowerCase())))
    .map((record) => ({code: 'font-fallback', family: record.family, message: fallbackMessage(record, declared.has(record.family.toLowerCase()))}))
  const substituted = new Map(compiled.families.flatMap((family) => (family.substitute ? [[family.family.toLowerCase(), {...family, substitute: family.substitute}] as const] : [])))
  const substitutions = report.drawn.flatMap((name) => {
    const family = substituted.get(name.toLowerCase())
    return family && !reported.has(name.toLowerCase()) ? [substitutionFinding(family.family, family.substitute)] : []
  })
  return [...fallbacks, ...substitutions]
}

/**
 * With --strict-fonts (config `strictFonts`), text that is not drawn with the family it names, by a
 * fallback or by a stand-in, stops the render before its first frame.
 */
export function assertFontsAsNamed(findings: readonly FontFinding[]): void {
  const refused = findings.filter((finding) => finding.code === 'font-fallback' || finding.code === 'font-substituted')
  if (refused.length === 0) return
  const count = (code: FontFinding['code'], one: string, many: string) => {
    const n = refused.filter((finding) => finding.code === code).length
    return n === 0 ? [] : [`${n} ${n === 1 ? one : many}`]
  }
  const what = [...count('font-fallback', 'font fallback', 'font fallbacks'), ...count('font-substituted', 'substituted family', 'substituted families')].join(' and ')
  throw new EngineError('FONT_MISSING', `--strict-fonts: ${what}, nothing was rendered:\n${refused.map((finding) => `  - ${finding.message}`).join('\n')}`, {findings: refused})
}

type Warn = (warning: {code: string; message: string; level?: 'info'}) => void

/**
 * Tells a render's font findings once each, wherever they come from: compile, each worker's page
 * when it is ready, and the page's samples while it is seeked. With --strict-fonts a fallback or a
 * stand-in is an error instead (before the browser starts, before the first frame, or, for a
 * family a script sets later, as soon as a sample sees it).
 */
export class FontReporter {
  private readonly told = new Set<string>()

  constructor(
    private readonly compiled: CompiledFontFindings,
    private readonly strict: boolean,
    private readonly warn: Warn,
  ) {}

  compile(): void {
    this.tell(this.compiled.findings)
  }

  page(report: PageFontReport): void {
    this.tell(pageFontFindings(report, this.compiled))
  }

  private tell(findings: readonly FontFinding[]): void {
    const fresh = findings.filter((finding) => !this.told.has(finding.message))
    if (this.strict) assertFontsAsNamed(fresh)
    for (const finding of fresh) {
      this.told.add(finding.message)
      this.warn({code: finding.code, message: finding.message, ...(finding.level && {level: finding.level})})
    }
  }
}

/** A served face that did not load: the render cannot show the font it resolved. */
export function fontLoadFailure(failed: readonly FontFailureRecord[]): EngineError {
  const first = failed[0]
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more face${failed.length === 2 ? '' : 's'})` : ''
  return new EngineError(
    'FONT_FAILED',
    `font "${first.family}" ${first.weight} ${first.style} did not load from ${first.file}${more}: the file is corrupt or unreadable; reinstall its package (npm ci, or \`engine fonts add "${first.family}"\`)`,
    {failed},
  )
}
