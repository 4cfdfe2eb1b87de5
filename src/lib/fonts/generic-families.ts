/**
 * The bundled face each CSS generic family is drawn with, in every mode and profile, so that the
 * host's fonts never decide the output. The default font of a page (no `font-family` at all) is
 * the browser's standard font, a serif: it maps like `serif`. The `ui-*` keywords are not here:
 * Chromium takes them as family names, drawn with their stand-ins (family-substitutes.ts).
 */
export const GENERIC_FAMILY_FACES: Readonly<Record<string, string>> = {
  'sans-serif': 'Noto Sans',
  serif: 'Noto Serif',
  monospace: 'Noto Sans Mono',
  cursive: 'Dancing Script',
  fantasy: 'Noto Sans',
  math: 'Noto Serif',
  fangsong: 'Noto Serif',
}

/**
 * Keywords Chromium resolves to one of the host's fonts although they name a single system face.
 * Compile quotes them (`system-ui` → `"system-ui"`), which makes them family names, drawn with
 * the stand-in engine serves under that name.
 */
const SYSTEM_FAMILY_KEYWORDS = new Set(['system-ui'])

/** The face of a page whose text names no family. */
export const DEFAULT_FAMILY_FACE = GENERIC_FAMILY_FACES.serif

export function isGenericFamily(name: string): boolean {
  return Object.hasOwn(GENERIC_FAMILY_FACES, name.toLowerCase())
}

export function isSystemFamilyKeyword(name: string): boolean {
  return SYSTEM_FAMILY_KEYWORDS.has(name.toLowerCase())
}
