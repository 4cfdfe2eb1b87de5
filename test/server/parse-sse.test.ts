import {describe, expect, it} from 'vitest'
import {readEventStream, SseParser} from '../../src/lib/server-client/parse-sse.js'

describe('SseParser', () => {
  it('parses data, event and id fields, skipping comments and joining multi-line data', () => {
    const parser = new SseParser()
    const messages = parser.feed(': keep-alive\n\ndata: {"a":1}\n\nevent: custom\nid: 7\ndata: line one\ndata:line two\n\n')
    expect(messages).toEqual([
      {event: 'message', data: '{"a":1}'},
      {event: 'custom', data: 'line one\nline two', id: '7'},
    ])
  })

  it('gives the same messages whatever the chunk boundaries, with \\n, \\r\\n or \\r line ends', () => {
    const text = 'data: first\r\n\r\ndata: second\r\rdata: third\n\n'
    const expected = ['first', 'second', 'third']
    for (let size = 1; size <= text.length; size++) {
      const parser = new SseParser()
      const data: string[] = []
      for (let i = 0; i < text.length; i += size) data.push(...parser.feed(text.slice(i, i + size)).map((m) => m.data))
      expect(data, `chunk size ${size}`).toEqual(expected)
    }
  })

  it('drops an unterminated event at the end of the stream', async () => {
    const body = new Blob(['data: done\n\ndata: cut'])
    const messages = []
    for await (const message of readEventStream(body.stream())) messages.push(message.data)
    expect(messages).toEqual(['done'])
  })
})
