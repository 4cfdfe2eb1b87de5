/** The select's value for "the cues are the text below" (never a file name: those have an extension). */
export const TYPED_CUES = '(typed)'

export interface CaptionControlOptions {
  id: string
  value: string
  /** WebVTT and SubRip files under the composition's folder, relative to it. */
  files: readonly string[]
  /** The variable's new value: a file's path, the typed cue text, or '' for no captions. */
  onChange: (value: string, typing: boolean) => void
}

/**
 * The control of a caption variable (a string variable shown by `data-captions-var`): a choice of
 * no captions, one of the project's caption files, or cues typed as WebVTT or SubRip text, as a
 * render takes the value. Typing into the text chooses it.
 */
export function captionControl(options: CaptionControlOptions): HTMLElement[] {
  const select = document.createElement('select')
  select.id = options.id
  const choices: [string, string][] = [['', 'No captions'], ...options.files.map((file): [string, string] => [file, file]), [TYPED_CUES, 'Cues typed below']]
  for (const [value, label] of choices) {
    const option = document.createElement('option')
    option.value = value
    option.textContent = label
    select.append(option)
  }
  const text = document.createElement('textarea')
  text.className = 'cues'
  text.rows = 4
  text.spellcheck = false
  text.placeholder = 'WEBVTT\n\n00:00.000 --> 00:02.000\nHello'
  text.setAttribute('aria-label', 'Cue text (WebVTT or SubRip)')
  const typed = options.value !== '' && !options.files.includes(options.value)
  select.value = typed ? TYPED_CUES : options.value
  text.value = typed ? options.value : ''
  select.addEventListener('change', () => options.onChange(select.value === TYPED_CUES ? text.value : select.value, false))
  text.addEventListener('input', () => {
    select.value = TYPED_CUES
    options.onChange(text.value, true)
  })
  return [select, text]
}
