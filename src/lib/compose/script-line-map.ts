import type {Element} from 'domhandler'

/** Lines `compiledLine .. compiledLine + lineCount - 1` of the compiled page are lines from `line` on of `file`. */
export interface ScriptLines {
  compiledLine: number
  lineCount: number
  file: string
  line: number
}

const MARKER = /\/\*@engine-source (\d+)\*\//g

/**
 * The compiled page does not keep the author's lines: the parser drops the whitespace before
 * `<head>`, and inlined sub-compositions push later scripts down, so the browser's line numbers
 * point into the compiled page. Each inline script gets a marker comment where its code starts;
 * once the page is serialized, the markers tell where each script landed, and are removed.
 */
export class ScriptLineMarkers {
  private readonly sources: {file: string; line: number; lineCount: number}[] = []

  /** The script's code with a marker in front, when the parser kept the script's location. */
  mark(element: Element, code: string, file: string): string {
    const location = (element as unknown as {sourceCodeLocation?: {startTag?: {endLine: number}} | null}).sourceCodeLocation
    const line = location?.startTag?.endLine
    if (line === undefined) return code
    this.sources.push({file, line, lineCount: code.split('\n').length})
    return `/*@engine-source ${this.sources.length - 1}*/${code}`
  }

  /** The page without markers, and where each marked script's lines came from. */
  resolve(html: string): {html: string; lines: ScriptLines[]} {
    const lines: ScriptLines[] = []
    let compiledLine = 1
    let scanned = 0
    for (const match of html.matchAll(MARKER)) {
      compiledLine += countNewlines(html, scanned, match.index)
      scanned = match.index
      const source = this.sources[Number(match[1])]
      if (source) lines.push({compiledLine, lineCount: source.lineCount, file: source.file, line: source.line})
    }
    return {html: html.replace(MARKER, ''), lines}
  }
}

/** The file and line a line of the compiled page came from, when it is inside an inline script. */
export function sourceLineOf(lines: readonly ScriptLines[], compiledLine: number): {file: string; line: number} | undefined {
  const script = lines.find((entry) => compiledLine >= entry.compiledLine && compiledLine < entry.compiledLine + entry.lineCount)
  return script && {file: script.file, line: script.line + (compiledLine - script.compiledLine)}
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count++
  return count
}
