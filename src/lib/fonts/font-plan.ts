import type {FontStyle} from './font-catalog.js'

/** One face of one subset the engine serves to the page (a FontFace the runtime adds). */
export interface ServedFontFace {
  family: string
  /** The face's weight; for a variable face, its default (the range is `weightRange`). */
  weight: number
  /** A variable face's `font-weight` range, `100 900`: one file draws every weight in it. */
  weightRange?: string
  style: FontStyle
  unicodeRange: string
  /** `engineAssetUrl('fonts', '<sha256>.woff2')` */
  url: string
  /** Content-addressed name in the font cache. */
  name: string
  /** Where it comes from, for messages and for putting it into another machine's cache: `@fontsource/inter/files/…`. */
  file: string
}

/** A face the page must have loaded before its first frame. */
export interface EagerFace {
  family: string
  weight: number
  style: FontStyle
}

/** What the in-page runtime is told about fonts (part of the RuntimeConfig, plain JSON). */
export interface RuntimeFonts {
  faces: ServedFontFace[]
  eager: EagerFace[]
}
