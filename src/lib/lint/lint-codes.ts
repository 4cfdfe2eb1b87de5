export const LINT_CODES = [
  {code: 'variables-malformed', severity: 'error', description: 'data-composition-variables is not valid JSON, or holds an entry that is not an object'},
  {code: 'declarations-invalid', severity: 'warning', description: 'data-composition-variables is JSON but not an array of declarations (an object, for example): the composition renders with no declared variables (an error with --strict-variables)'},
  {code: 'variable-missing-field', severity: 'error', description: 'a declaration lacks one of the required fields id, type, label, default'},
  {code: 'variable-invalid-field', severity: 'error', description: 'a declaration field has the wrong form (for example a non-string label or a negative maxLength)'},
  {code: 'variable-default-mismatch', severity: 'error', description: 'default does not match the declared type (a color default must be "#rrggbb")'},
  {code: 'variable-unknown-type', severity: 'warning', description: 'type is not string, number, color, boolean, enum or image; the declaration is ignored and values for it are undeclared'},
  {code: 'variable-duplicate-id', severity: 'error', description: 'two declarations share an id'},
  {code: 'enum-missing-options', severity: 'error', description: 'an enum declaration has no options list (or an empty one)'},
  {code: 'enum-default-not-option', severity: 'error', description: "an enum's default is not one of its option values"},
  {code: 'composition-id-missing', severity: 'error', description: 'no element carries data-composition-id'},
  {code: 'composition-attribute-missing', severity: 'error', description: 'the root composition lacks data-width or data-height, or data-duration with no script that could register a timeline to take the length from'},
  {code: 'duration-inferred', severity: 'warning', description: 'the root composition has no data-duration: a render takes the length of its longest timeline registered in window.__timelines (an error with --strict)'},
  {code: 'composition-attribute-invalid', severity: 'error', description: 'data-width/data-height is not a positive whole number, data-duration is not a positive number, data-fps is not a rate of 1-240 frames/s (an integer or a rational such as 30000/1001), or data-ready-timeout is not a number of seconds above 0 and at most 600'},
  {code: 'fps-capped', severity: 'warning', description: 'the root\'s data-fps is above what the intended output format plays (gif: 30 frames/s): that format renders at its cap'},
  {code: 'clip-timing-invalid', severity: 'error', description: 'data-start is empty or negative, data-duration is not a positive number, or data-track-index is not a whole number >= 0'},
  {code: 'start-unknown-reference', severity: 'error', description: 'data-start names an id that no clip of the same composition carries'},
  {code: 'clip-never-visible', severity: 'warning', description: 'a clip of the root composition starts at or after the end of the composition, so no frame shows it'},
  {code: 'start-cycle', severity: 'error', description: 'data-start references form a cycle'},
  {code: 'sub-composition-not-found', severity: 'error', description: 'the file named by data-composition-src does not exist'},
  {code: 'sub-composition-cycle', severity: 'error', description: 'a composition includes itself through data-composition-src'},
  {code: 'variable-values-malformed', severity: 'error', description: 'data-variable-values is not a JSON object'},
  {code: 'variable-values-undeclared', severity: 'error', description: 'data-variable-values sets a key the sub-composition does not declare'},
  {code: 'variable-values-type-mismatch', severity: 'error', description: "a data-variable-values value does not match the sub-composition's declared type"},
  {code: 'variable-values-enum-out-of-range', severity: 'error', description: 'a data-variable-values value for an enum is not one of its options'},
  {code: 'color-grading-malformed', severity: 'error', description: 'data-color-grading is neither a JSON object nor a bare preset name'},
  {code: 'color-grading-unknown-variable', severity: 'error', description: 'data-color-grading references $name / ${name} that the composition does not declare'},
  {code: 'color-grading-partial-substitution', severity: 'warning', description: 'data-color-grading has $name inside a longer value; only a whole value is substituted'},
  {code: 'font-unresolved', severity: 'warning', description: 'a font family is not declared with @font-face, bundled or in the font cache, so its text falls back to another font (engine fonts add "<family>")'},
  {code: 'captions-invalid', severity: 'error', description: 'a data-captions file (or the default of a data-captions-var variable) is missing, outside the project, or not valid WebVTT/SubRip; the message names its line'},
  {code: 'asset-missing', severity: 'warning', description: 'an <img>, srcset, video poster, SVG <image> or CSS url() names a project file that does not exist: it renders blank'},
  {code: 'resource-missing', severity: 'warning', description: 'a <script src> or stylesheet <link> names a project file that does not exist: the page renders without it'},
  {code: 'resource-remote', severity: 'warning', description: 'a <script src> or stylesheet <link> loads from an http(s) URL at render time: refused with --no-network and failing offline; vendor the file into the project'},
  {code: 'resource-refused', severity: 'error', description: 'a <script src> or stylesheet <link> is on a loopback or private address, which a render never loads (unless --allow-private-network); vendor the file into the project'},
  {code: 'font-url-unreadable', severity: 'warning', description: 'a Google Fonts stylesheet URL cannot be read; it is removed so renders do not wait on the network'},
  {code: 'text-fit-invalid', severity: 'warning', description: 'data-fit is not "shrink", data-fit-min is not a positive number of pixels, or data-max-lines is not a whole number >= 1: the runtime ignores it'},
  {code: 'background-with-alpha', severity: 'warning', description: 'html or body sets a background, which covers the transparency of an alpha format (mov, webm, png-sequence)'},
] as const

export type LintCode = (typeof LINT_CODES)[number]['code']
export type LintSeverity = 'error' | 'warning'

export interface LintFinding {
  code: LintCode
  severity: LintSeverity
  message: string
  /** The file as the user would name it: the path given to lint, or a sub-composition path joined onto it. */
  file: string
  line?: number
}
