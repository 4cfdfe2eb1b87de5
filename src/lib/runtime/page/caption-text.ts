import type {RuntimeConfig} from '../runtime-config.js'

/** The attribute compile puts on each captions element (CAPTIONS_KEY_ATTRIBUTE; in-page code cannot import compose). */
const KEY_ATTRIBUTE = 'data-engine-captions'

/**
 * Writes the text of the cues showing at each frame into the captions elements. A cue shows at
 * frame N when its start <= N/fps < its end, compared in whole numbers (N·den·1000 against ms·num),
 * so the answer depends only on N and never on float rounding or on which worker drew the frame.
 * The text goes in as text (`textContent`), never as markup.
 */
export class CaptionText {
  constructor(
    private readonly doc: Document,
    private readonly config: RuntimeConfig,
  ) {}

  apply(frame: number): void {
    const captions = this.config.captions
    if (!captions) return
    const {num, den} = this.config.fps
    const scaled = Math.floor(frame + 1e-9) * den * 1000
    for (const element of Array.from(this.doc.querySelectorAll(`[${KEY_ATTRIBUTE}]`))) {
      const cues = captions[Number(element.getAttribute(KEY_ATTRIBUTE))]?.cues ?? []
      const text = cues
        .filter((cue) => scaled >= cue.startMs * num && scaled < cue.endMs * num)
        .map((cue) => cue.text)
        .join('\n')
      if (element.textContent !== text) element.textContent = text
      element.toggleAttribute('data-captions-active', text !== '')
    }
  }
}
