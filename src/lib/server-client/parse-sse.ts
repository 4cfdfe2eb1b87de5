/** One dispatched server-sent event. */
export interface SseMessage {
  event: string
  data: string
  id?: string
}

/**
 * Incremental parser for the `text/event-stream` format (WHATWG HTML, "server-sent events"):
 * feed it text in chunks of any size; it returns the messages completed by each chunk.
 */
export class SseParser {
  private buffer = ''
  private data: string[] = []
  private event = ''
  private id?: string
  private skipLeadingNewline = false

  feed(chunk: string): SseMessage[] {
    const messages: SseMessage[] = []
    this.buffer += chunk
    if (this.skipLeadingNewline && this.buffer !== '') {
      if (this.buffer.startsWith('\n')) this.buffer = this.buffer.slice(1)
      this.skipLeadingNewline = false
    }
    let match: RegExpExecArray | null
    const lineEnd = /\r\n|\r|\n/g
    let consumed = 0
    while ((match = lineEnd.exec(this.buffer))) {
      // A lone \r at the end of a chunk may be the first half of \r\n.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) this.skipLeadingNewline = true
      const message = this.line(this.buffer.slice(consumed, match.index))
      if (message) messages.push(message)
      consumed = match.index + match[0].length
    }
    this.buffer = this.buffer.slice(consumed)
    return messages
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'id' && !value.includes('\0')) this.id = value
    return undefined
  }

  private dispatch(): SseMessage | undefined {
    const message = this.data.length === 0 ? undefined : {event: this.event || 'message', data: this.data.join('\n'), ...(this.id === undefined ? {} : {id: this.id})}
    this.data = []
    this.event = ''
    return message
  }
}

/** Reads a fetch response body as server-sent events; stopping early closes the body. */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const parser = new SseParser()
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let done = false
  try {
    while (!done) {
      const chunk = await reader.read()
      done = chunk.done
      yield* parser.feed(done ? decoder.decode() : decoder.decode(chunk.value, {stream: true}))
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {})
  }
}
