// Server-sent events off a fetch body, read incrementally: each event's `data` is yielded the
// moment its blank line arrives, so a text delta reaches the screen while the run goes on.

/** Yield the `data` field of each event in `body` until `[DONE]` or the end of the stream. */
export async function* readEventData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      let boundary: number
      while ((boundary = findBoundary(buffer)) !== -1) {
        const block = buffer.slice(0, boundary)
        buffer = buffer.slice(boundary).replace(/^(\r\n|\r|\n)/, '')
        const data = dataOf(block)
        if (data === null) continue
        if (data === '[DONE]') return
        yield data
      }
      if (done) {
        const data = dataOf(buffer)
        if (data !== null && data !== '[DONE]') yield data
        return
      }
    }
  } finally {
    // Releasing (or cancelling, when the consumer stopped early) frees the connection.
    await reader.cancel().catch(() => undefined)
  }
}

/** Index just past the line break that ends the first event of `text` (a blank line), or -1. */
function findBoundary(text: string): number {
  const match = /\r\n\r\n|\n\n|\r\r|\r\n\n|\n\r\n/.exec(text)
  return match ? match.index + match[0].length - 1 : -1
}

/** The joined `data:` lines of one event block; null when it has none (a comment, a ping). */
function dataOf(block: string): string | null {
  const lines: string[] = []
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line.startsWith('data:')) lines.push(line.slice(line.startsWith('data: ') ? 6 : 5))
  }
  return lines.length ? lines.join('\n') : null
}
