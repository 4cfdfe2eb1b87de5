import type {Readable} from 'node:stream'

/**
 * The lines of a stream (`\n` or `\r\n`), read as the consumer asks for them: the stream is paused
 * while a line waits, so a slow consumer holds one chunk, not the file. (readline's iterator
 * queues every line it reads ahead.)
 */
export async function* readLines(input: Readable): AsyncGenerator<string> {
  input.setEncoding('utf8')
  let rest = ''
  for await (const chunk of input as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n')
    rest = lines.pop()!
    for (const line of lines) yield line.endsWith('\r') ? line.slice(0, -1) : line
  }
  if (rest !== '') yield rest.endsWith('\r') ? rest.slice(0, -1) : rest
}
