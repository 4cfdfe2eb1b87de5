import {checkCompositionAttributes} from '../compose/check-composition-attributes.js'
import {parseColorGrading} from '../compose/color-grading-references.js'
import {describeElement, lineOf} from '../compose/load-html.js'
import type {ClipSource, ParsedComposition} from '../compose/parse-composition.js'
import {resolveTiming, type TimingItem} from '../compose/resolve-timing.js'
import {fpsValue, parseDeclaredFps} from '../plan/fps.js'
import {declarationLine} from './declaration-line.js'
import {findBackgroundOnRoot} from './find-background-on-root.js'
import {lintTextFit} from './lint-text-fit.js'
import type {LintCode, LintFinding, LintSeverity} from './lint-codes.js'

export interface LintFileOptions {
  /** The top-level file: root attributes are required and the alpha background check applies. */
  isRoot: boolean
  /** The output format has alpha (mov, webm, png-sequence). */
  alpha?: boolean
  /** The output format's rate cap (gif: 30): a higher data-fps is a note. */
  maxFps?: number
  /** The output format's name, for that note. */
  format?: string
}

/** Everything that can be checked inside one file; sub-compositions are followed by the caller. */
export function lintFile(parsed: ParsedComposition, file: string, options: LintFileOptions): LintFinding[] {
  const findings: LintFinding[] = []
  const add = (code: LintCode, severity: LintSeverity, message: string, line: number | undefined) =>
    findings.push(line === undefined ? {code, severity, message, file} : {code, severity, message, file, line})

  for (const problem of checkCompositionAttributes(parsed, {isRoot: options.isRoot})) {
    add(problem.code, 'error', problem.message, problem.line)
  }
  if (options.isRoot && parsed.root && parsed.duration.raw === undefined) lintMissingDuration(parsed, add)
  if (options.isRoot && parsed.root) lintDeclaredFps(parsed, options, add)
  for (const problem of parsed.declarations.problems) {
    add(problem.code, problem.severity, problem.message, declarationLine(parsed, problem.index))
  }
  // Starts inside a sub-composition are relative to a host this file cannot see: only the root's clips have absolute times.
  lintTiming(parsed.clips, add, options.isRoot ? parsed.duration.value : undefined)
  lintColorGrading(parsed, add)
  for (const problem of lintTextFit(parsed.$)) add('text-fit-invalid', 'warning', problem.message, problem.line)
  if (options.isRoot && options.alpha) {
    for (const background of findBackgroundOnRoot(parsed.$)) add('background-with-alpha', 'warning', background.message, background.line)
  }
  return findings
}

type Add = (code: LintCode, severity: LintSeverity, message: string, line: number | undefined) => void

function lintTiming(clips: ClipSource[], add: Add, compositionDuration: number | undefined): void {
  const items: TimingItem[] = []
  for (const clip of clips) {
    const {element} = clip
    const startInvalid =
      clip.startRaw !== undefined && (clip.startRaw.trim() === '' || (typeof clip.start === 'number' && (clip.start < 0 || !Number.isFinite(clip.start))))
    if (startInvalid) {
      add('clip-timing-invalid', 'error', `data-start="${clip.startRaw}" must be seconds >= 0 or the id of the clip this one follows`, lineOf(element, 'data-start'))
    }
    const {duration, trackIndex} = clip
    if (duration.raw !== undefined && (duration.value === undefined || duration.value <= 0)) {
      add('clip-timing-invalid', 'error', `data-duration="${duration.raw}" must be a positive number of seconds`, duration.line)
    }
    if (trackIndex.raw !== undefined && (trackIndex.value === undefined || trackIndex.value < 0 || !Number.isInteger(trackIndex.value))) {
      add('clip-timing-invalid', 'error', `data-track-index="${trackIndex.raw}" must be a whole number >= 0`, trackIndex.line)
    }
    items.push({key: clip.key, id: clip.id, start: startInvalid ? 0 : clip.start, duration: duration.value})
  }
  const byKey = new Map(clips.map((clip) => [clip.key, clip]))
  const {timings, findings} = resolveTiming(items)
  if (compositionDuration !== undefined) {
    for (const clip of clips) {
      const start = timings[clip.key]?.start
      if (start === undefined || start < compositionDuration) continue
      add(
        'clip-never-visible',
        'warning',
        `${clipName(clip)} starts at ${start} s, at or after the end of the composition (data-duration="${compositionDuration}"): a clip is visible while start <= t < start + duration, so it never shows; start it earlier or lengthen the composition`,
        lineOf(clip.element, 'data-start'),
      )
    }
  }
  for (const finding of findings) {
    const clip = byKey.get(finding.key)!
    const line = lineOf(clip.element, 'data-start')
    if (finding.kind === 'unknown-reference') {
      const ids = clips.flatMap((candidate) => (candidate.id ? [candidate.id] : []))
      add(
        'start-unknown-reference',
        'error',
        `data-start="${finding.reference}" names no clip of this composition (${ids.length > 0 ? `clip ids: ${ids.join(', ')}` : 'no clip has an id'}); use seconds or the id of the clip to follow`,
        line,
      )
    } else if (finding.kind === 'cycle') {
      add('start-cycle', 'error', `data-start references form a cycle: ${finding.chain.join(' -> ')}; one of them must start at a time in seconds`, line)
    }
  }
}

/**
 * A root without data-duration renders as long as its longest registered timeline, with a
 * warning; a page with no script that could register one cannot render at all.
 */
function lintMissingDuration(parsed: ParsedComposition, add: Add): void {
  const root = parsed.root!
  const scripts = parsed.$('script').toArray()
  const mayRegister = scripts.some((script) => script.attribs.src !== undefined || /__timelines/.test(parsed.$(script).text()))
  if (mayRegister) {
    add(
      'duration-inferred',
      'warning',
      `the root composition element ${describeElement(root)} has no data-duration: a render takes the length of its longest timeline registered in window.__timelines (a duration-inferred warning; --strict refuses it); write data-duration to fix the length`,
      lineOf(root),
    )
  } else {
    add(
      'composition-attribute-missing',
      'error',
      `the root composition element ${describeElement(root)} has no data-duration and no script that registers a timeline to take the length from; add for example data-duration="5"`,
      lineOf(root),
    )
  }
}

/** The root's data-fps takes the forms and range of --fps; a format with a lower cap renders at its cap. */
function lintDeclaredFps(parsed: ParsedComposition, options: LintFileOptions, add: Add): void {
  const {raw, line} = parsed.fps
  if (raw === undefined) return
  let fps
  try {
    fps = parseDeclaredFps(raw.trim())
  } catch (error) {
    add('composition-attribute-invalid', 'error', (error as Error).message, line)
    return
  }
  if (options.maxFps !== undefined && fpsValue(fps) > options.maxFps) {
    add(
      'fps-capped',
      'warning',
      `data-fps="${raw.trim()}" on the root: ${options.format} plays at most ${options.maxFps} frames/s, so this render draws ${options.maxFps} frames/s (other formats keep ${raw.trim()}); pass --fps ${options.maxFps} to say so`,
      line,
    )
  }
}

function clipName(clip: ClipSource): string {
  return clip.id ? `<${clip.element.name} id="${clip.id}">` : `<${clip.element.name}>`
}

function lintColorGrading(parsed: ParsedComposition, add: Add): void {
  const declared = new Set(parsed.declarations.declarations.map((declaration) => declaration.id))
  for (const media of parsed.media) {
    if (media.colorGradingRaw === undefined) continue
    const line = lineOf(media.element, 'data-color-grading')
    const grading = parseColorGrading(media.colorGradingRaw)
    if (!grading.ok) {
      add('color-grading-malformed', 'error', `data-color-grading on <${media.tag}> is ${grading.error}`, line)
      continue
    }
    for (const reference of grading.references) {
      if (!reference.whole) {
        add(
          'color-grading-partial-substitution',
          'warning',
          `data-color-grading field "${reference.path}" contains $${reference.name} inside a longer value; it is not substituted: only a field whose whole value is "$${reference.name}" is`,
          line,
        )
      } else if (!declared.has(reference.name)) {
        const names = [...declared]
        add(
          'color-grading-unknown-variable',
          'error',
          `data-color-grading field "${reference.path}" uses $${reference.name}, which is not a declared variable of this composition (${names.length > 0 ? `declared: ${names.join(', ')}` : 'it declares none'})`,
          line,
        )
      }
    }
  }
}
