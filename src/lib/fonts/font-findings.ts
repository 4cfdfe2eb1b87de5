import {EngineError} from '../errors/engine-error.js'
import type {FontFallbackRecord, FontFailureRecord, PageFontReport} from './page/page-fonts.js'
import type {FontFinding} from './prepare-fonts.js'

function fixFor(family: string): string {
  return `Fix: \`engine fonts add "${family}"\` (needs the npm registry once), or an @font-face rule pointing at the font file`
}

export function fallbackMessage(record: FontFallbackRecord): string {
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
      return `font ${face} is not available to the page, so ${where} falls back to another font. ${fixFor(record.family)}`
  }
}

/** The page's fallbacks as findings, leaving out families compile already reported as missing. */
export function pageFontFindings(report: PageFontReport, compileFindings: readonly FontFinding[]): FontFinding[] {
  const reported = new Set(compileFindings.map((finding) => finding.family?.toLowerCase()).filter(Boolean))
  return report.fallbacks
    .filter((record) => !(record.reason === 'not-available' && reported.has(record.family.toLowerCase())))
    .map((record) => ({code: 'font-fallback', family: record.family, message: fallbackMessage(record)}))
}

/** With --strict-fonts (config `strictFonts`), any fallback stops the render before its first frame. */
export function assertNoFontFallbacks(findings: readonly FontFinding[]): void {
  const fallbacks = findings.filter((finding) => finding.code === 'font-fallback')
  if (fallbacks.length === 0) return
  throw new EngineError(
    'FONT_MISSING',
    `--strict-fonts: ${fallbacks.length} font fallback${fallbacks.length === 1 ? '' : 's'}, nothing was rendered:\n${fallbacks.map((finding) => `  - ${finding.message}`).join('\n')}`,
    {findings: fallbacks},
  )
}

type Warn = (warning: {code: string; message: string}) => void

/** Compile's font findings: warnings, or (strict) an error before the browser starts. */
export function reportCompileFonts(findings: readonly FontFinding[], strict: boolean, warn: Warn): void {
  if (strict) assertNoFontFallbacks(findings)
  for (const finding of findings) warn({code: finding.code, message: finding.message})
}

/** The page's font report once it is ready, before its first frame: warnings, or (strict) an error. */
export function reportPageFonts(report: PageFontReport, compileFindings: readonly FontFinding[], strict: boolean, warn: Warn): void {
  const findings = pageFontFindings(report, compileFindings)
  if (strict) assertNoFontFallbacks(findings)
  for (const finding of findings) warn({code: finding.code, message: finding.message})
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
