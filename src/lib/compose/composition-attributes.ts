/** One `data-*` attribute of the composition contract: where it goes, what it does, what it is when absent. */
export interface CompositionAttributeDoc {
  name: string
  /** The elements it belongs on. */
  on: string
  meaning: string
  /** What engine does when the attribute is absent. */
  default: string
  /** Who writes it: the author, or engine itself (listed so that authors can style or select by it). */
  writtenBy: 'author' | 'engine'
}

/**
 * Every `data-*` attribute engine reads or writes in a composition, kept beside the code so that
 * docs/reference/composition-attributes.md is generated from it; the generator fails when the
 * source names an attribute this list lacks.
 */
export const COMPOSITION_ATTRIBUTES: readonly CompositionAttributeDoc[] = [
  {name: 'data-composition-id', on: 'the root (`<html>` or the top element); the root of each sub-composition file', meaning: 'Marks the composition and names it; `window.__timelines[id]` registers its timeline.', default: 'required', writtenBy: 'author'},
  {name: 'data-width', on: 'the root', meaning: 'Width of the frame in CSS pixels, a positive whole number.', default: 'required on the root', writtenBy: 'author'},
  {name: 'data-height', on: 'the root', meaning: 'Height of the frame in CSS pixels, a positive whole number.', default: 'required on the root', writtenBy: 'author'},
  {name: 'data-duration', on: 'the root; any clip; `<video>`, `<audio>`', meaning: 'On the root: length of the render in seconds (at most 86,400). On a clip: its length in seconds, read from the live page after scripts ran.', default: 'root: the length of its registered GSAP timelines (`--strict` refuses a root without it); a clip: shown to the end; a sub-composition host: its sub-composition\'s `data-duration`; media: the rest of its source', writtenBy: 'author'},
  {name: 'data-fps', on: 'the root', meaning: 'The frame rate the composition is written for: an integer 1-240 or a rational such as `30000/1001`. Used when no flag, config file, request or SDK option names a rate.', default: '30', writtenBy: 'author'},
  {name: 'data-ready-timeout', on: 'the root', meaning: 'Seconds a capture waits for the page to be ready, `__engine.hold()` included; past it the render fails with `PAGE_TIMEOUT`.', default: '30 (at most 600)', writtenBy: 'author'},
  {name: 'data-composition-variables', on: '`<html>` of the composition or sub-composition file', meaning: 'JSON array of variable declarations (`id`, `type`, `label`, `default`, and per type `options`, `min`, `max`, `step`, `unit`, `placeholder`, `maxLength`); see the JSON Schema `schemas/composition-variables.schema.json`.', default: 'no variables', writtenBy: 'author'},
  {name: 'data-start', on: 'any element inside the composition (a clip)', meaning: 'Start time in seconds, or the `id` of another clip: this one starts when that one ends.', default: '0 (counted from the start of its sub-composition, if it is in one)', writtenBy: 'author'},
  {name: 'data-track-index', on: 'a clip', meaning: 'Lane number for editors; paint order stays CSS `z-index`.', default: 'none', writtenBy: 'author'},
  {name: 'data-composition-src', on: 'a host element', meaning: 'Path of a sub-composition file inlined into this element at compile time (inside the project).', default: 'none', writtenBy: 'author'},
  {name: 'data-variable-values', on: 'a host element (with `data-composition-src`)', meaning: 'JSON object of values for this instance of the sub-composition, checked against its declarations.', default: 'the sub-composition\'s declared defaults', writtenBy: 'author'},
  {name: 'data-var-src', on: '`<img>`', meaning: 'Id of an `image` variable: its value becomes the element\'s `src` before the page loads (inside a sub-composition, that instance\'s value).', default: 'none', writtenBy: 'author'},
  {name: 'data-has-audio', on: '`<video>`', meaning: 'Mix the video\'s sound into the output (every `<audio>` is mixed; a `<video>` only with this). `"false"` is the same as absent.', default: 'silent', writtenBy: 'author'},
  {name: 'data-playback-start', on: '`<video>`, `<audio>`', meaning: 'Seconds into the source where the clip begins.', default: '0', writtenBy: 'author'},
  {name: 'data-media-start', on: '`<video>`, `<audio>`', meaning: 'Older name of `data-playback-start`, still read.', default: '0', writtenBy: 'author'},
  {name: 'data-playback-rate', on: '`<video>`, `<audio>`', meaning: 'Playback speed, 0.1-5 (clamped); changes tempo, not pitch.', default: '1', writtenBy: 'author'},
  {name: 'data-volume', on: '`<video>`, `<audio>`', meaning: 'Linear gain 0-3.98 (clamped); 0.5 is −6 dB.', default: '1', writtenBy: 'author'},
  {name: 'data-color-grading', on: '`<video>`', meaning: 'A preset name, or a JSON object `{preset, intensity, adjust, colorSpace, enabled}`; a field whose whole value is `$name` takes that variable.', default: 'no grading', writtenBy: 'author'},
  {name: 'data-max-lines', on: 'an element with text', meaning: 'Its text may take at most this many lines (a whole number from 1); more is a `text-overflow` finding of the check pass.', default: 'no line limit', writtenBy: 'author'},
  {name: 'data-fit', on: 'an element with a box of its own', meaning: '`shrink`: lower the font size, in whole pixels, until the text fits its box (and its `data-max-lines`).', default: 'text keeps its size', writtenBy: 'author'},
  {name: 'data-fit-min', on: 'an element with `data-fit="shrink"`', meaning: 'Smallest font size `data-fit="shrink"` goes to, in pixels.', default: 'half the author\'s size', writtenBy: 'author'},
  {name: 'data-captions', on: 'any element', meaning: 'Path of a WebVTT or SubRip file in the project; the runtime writes the text of the cues showing at each frame into the element.', default: 'none', writtenBy: 'author'},
  {name: 'data-captions-var', on: 'any element', meaning: 'Id of a `string` variable holding the cues (text with `-->`) or a path to a captions file, per row.', default: 'none', writtenBy: 'author'},
  {name: 'data-captions-active', on: 'a captions element', meaning: 'Present while a cue shows, so `[data-captions-active]` styles (a background) show only with text.', default: '-', writtenBy: 'engine'},
  {name: 'data-engine-hidden', on: 'a clip', meaning: 'Set on clips outside their time window; the runtime\'s stylesheet hides them and everything inside.', default: '-', writtenBy: 'engine'},
  {name: 'data-engine-instance', on: 'a sub-composition host', meaning: 'Key of the inlined instance: scopes its styles, scripts and variables.', default: '-', writtenBy: 'engine'},
  {name: 'data-engine-stylesheet', on: '`<style>`', meaning: 'A stylesheet engine inlined from a `<link>` at compile time.', default: '-', writtenBy: 'engine'},
  {name: 'data-engine-captions', on: 'a captions element', meaning: 'Index of the compiled cue list the element shows.', default: '-', writtenBy: 'engine'},
  {name: 'data-engine-fonts', on: '`<style>`', meaning: 'The `@font-face` rules engine adds for fonts it resolved offline.', default: '-', writtenBy: 'engine'},
]
