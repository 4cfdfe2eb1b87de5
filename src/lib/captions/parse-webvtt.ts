import webvttParser from 'webvtt-parser'
import {captionsError, type CaptionCue, type CaptionSource} from './cue.js'

interface VttNode {
  type: 'text' | 'object' | 'timestamp'
  value?: string
  children?: VttNode[]
}
interface VttParser {
  parse(input: string, mode: 'metadata'): {
    cues: {startTime: number; endTime: number; tree: {children: VttNode[]}}[]
    errors: {message: string; line: number; col?: number}[]
  }
}

// The W3C's own parser (webvtt.js): it follows the WebVTT spec and reports each problem with its line.
// A static import, so that the Lambda bundle (esbuild) takes it in; a require() made at run time it cannot see.
const {WebVTTParser} = webvttParser as {WebVTTParser: new (entities?: Record<string, string>) => VttParser}

/** Character references a cue may hold; the parser's own table lacks the semicolons and leaves them behind. */
const ENTITIES: Record<string, string> = {'&amp;': '&', '&lt;': '<', '&gt;': '>', '&lrm;': '\u200e', '&rlm;': '\u200f', '&nbsp;': '\u00a0'}

/** The cue's text without its markup: the text of every node, tags and timestamps dropped. */
function plainText(nodes: readonly VttNode[]): string {
  return nodes.map((node) => (node.type === 'text' ? (node.value ?? '') : node.type === 'object' ? plainText(node.children ?? []) : '')).join('')
}

export function parseWebVtt(text: string, source: CaptionSource): CaptionCue[] {
  const result = new WebVTTParser(ENTITIES).parse(text, 'metadata')
  const first = result.errors[0]
  if (first) {
    throw captionsError(source, first.line, first.message.replace(/\.$/, ''), 'fix the cue file (the WebVTT format: https://www.w3.org/TR/webvtt1/)')
  }
  return result.cues.map((cue) => ({startMs: Math.round(cue.startTime * 1000), endMs: Math.round(cue.endTime * 1000), text: plainText(cue.tree.children)}))
}
