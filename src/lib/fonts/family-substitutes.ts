/**
 * System and proprietary families templates name that no one may install or bundle, each drawn on
 * purpose with a bundled open family: a metric-compatible twin where one exists (same advance
 * widths, so text wraps where its author saw it wrap), else the closest bundled design. The page
 * gets the stand-in's faces under the name it asked for, so a stack such as
 * `-apple-system, BlinkMacSystemFont, "Segoe UI", sans-serif` draws its first family, as on a Mac.
 * docs/guides/fonts.md explains each choice with the measured metrics (bench/font-metrics.mjs).
 */
export interface FamilySubstitute {
  /** The bundled family whose files are served under the requested name. */
  family: string
  /** `metric-compatible`: same advance widths; `close`: no open twin, the nearest bundled design. */
  kind: 'metric-compatible' | 'close'
  /** One phrase for `engine fonts resolve` and the notice. */
  why: string
}

interface SubstituteRow extends FamilySubstitute {
  names: readonly string[]
}

const SYSTEM_UI = 'a system UI font with no open twin; Inter is the neutral UI sans most UI stacks are drawn with elsewhere'
const UI_MONO = 'a system monospace with no open twin; JetBrains Mono has the 0.6 em advance and cap height of Menlo (DejaVu Sans Mono design)'

const ROWS: readonly SubstituteRow[] = [
  {names: ['Arial', 'Helvetica', 'Liberation Sans'], family: 'Arimo', kind: 'metric-compatible', why: 'metric-compatible with Arial and Helvetica'},
  {names: ['Helvetica Neue'], family: 'Arimo', kind: 'close', why: "Helvetica's redrawing; Arimo has Helvetica's widths, the nearest bundled metrics"},
  {names: ['Times New Roman', 'Times', 'Liberation Serif'], family: 'Tinos', kind: 'metric-compatible', why: 'metric-compatible with Times New Roman'},
  {names: ['Courier New', 'Courier', 'Liberation Mono'], family: 'Cousine', kind: 'metric-compatible', why: 'metric-compatible with Courier New'},
  {names: ['Georgia'], family: 'Gelasio', kind: 'metric-compatible', why: 'metric-compatible with Georgia'},
  {names: ['Calibri'], family: 'Carlito', kind: 'metric-compatible', why: 'metric-compatible with Calibri'},
  {names: ['Cambria'], family: 'Caladea', kind: 'metric-compatible', why: 'metric-compatible with Cambria'},
  {
    names: ['system-ui', '-apple-system', 'BlinkMacSystemFont', 'ui-sans-serif', 'Segoe UI', 'Segoe UI Variable', 'SF Pro', 'SF Pro Text', 'SF Pro Display', 'San Francisco', 'Lucida Grande'],
    family: 'Inter',
    kind: 'close',
    why: SYSTEM_UI,
  },
  {names: ['ui-monospace', 'SF Mono', 'Menlo', 'Monaco', 'Consolas', 'Lucida Console', 'Andale Mono', 'DejaVu Sans Mono'], family: 'JetBrains Mono', kind: 'close', why: UI_MONO},
  {names: ['ui-serif', 'New York'], family: 'Noto Serif', kind: 'close', why: 'a system serif with no open twin; Noto Serif is the serif engine draws `serif` with'},
  {names: ['ui-rounded', 'SF Pro Rounded'], family: 'Nunito', kind: 'close', why: 'a rounded system font with no open twin; Nunito is the bundled rounded sans'},
  {names: ['Verdana', 'Tahoma'], family: 'Noto Sans', kind: 'close', why: 'a proprietary humanist sans; Noto Sans is the closest bundled design (wider text may wrap sooner)'},
  {names: ['Gotham', 'Proxima Nova'], family: 'Montserrat', kind: 'close', why: 'a commercial geometric sans; Montserrat is the closest bundled design'},
  {names: ['Impact'], family: 'Anton', kind: 'close', why: 'a proprietary condensed display face; Anton is the closest bundled design'},
  {names: ['Arial Black'], family: 'Archivo Black', kind: 'close', why: 'a proprietary heavy grotesque; Archivo Black is the closest bundled design'},
]

/**
 * Proprietary families with no stand-in: the fix names an open family one can install instead,
 * never the proprietary one.
 */
const INSTALLABLE_INSTEAD: Readonly<Record<string, string>> = {
  'apple color emoji': 'Noto Color Emoji',
  'segoe ui emoji': 'Noto Color Emoji',
  'segoe ui symbol': 'Noto Color Emoji',
  'android emoji': 'Noto Color Emoji',
  futura: 'Jost',
  avenir: 'Nunito Sans',
  'avenir next': 'Nunito Sans',
  'trebuchet ms': 'Fira Sans',
  'comic sans ms': 'Comic Neue',
  'palatino linotype': 'EB Garamond',
  palatino: 'EB Garamond',
  'book antiqua': 'EB Garamond',
  'gill sans': 'Lato',
  optima: 'Marcellus',
  'franklin gothic': 'Libre Franklin',
  'century gothic': 'Questrial',
}

const BY_NAME = new Map(ROWS.flatMap((row) => row.names.map((name) => [name.toLowerCase(), {family: row.family, kind: row.kind, why: row.why}] as const)))

/** The bundled stand-in for a system or proprietary family, if the table has one. */
export function substituteFor(family: string): FamilySubstitute | undefined {
  return BY_NAME.get(family.trim().toLowerCase())
}

/** Every name the table maps, as written in it (for finding them in scripts, and for the docs). */
export function substitutedNames(): string[] {
  return ROWS.flatMap((row) => row.names)
}

/** The table, for `engine fonts list` and the docs: each stand-in with the names drawn with it. */
export function substituteTable(): readonly SubstituteRow[] {
  return ROWS
}

/**
 * For a family that is neither bundled, cached nor substituted: an open family to install instead
 * when it is a known proprietary one (the fix must not suggest installing what cannot be installed).
 */
export function installableInstead(family: string): string | undefined {
  return INSTALLABLE_INSTEAD[family.trim().toLowerCase()]
}
