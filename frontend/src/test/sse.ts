// Helpers for tests that feed recorded streams (src/test/fixtures/*.sse, captured from a real
// `synapse serve --demo`) through the dashboard's reader.

/** A ReadableStream that hands out `text` in pieces of `size` bytes. */
export function streamOf(text: string, size = 64): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + size))
      offset += size
    },
  })
}

/** A stream the test pushes into by hand, to see what is read before it ends. */
export function controlledStream() {
  let push!: (text: string) => void
  let close!: () => void
  let fail!: (reason: unknown) => void
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (text) => controller.enqueue(new TextEncoder().encode(text))
      close = () => controller.close()
      fail = (reason) => controller.error(reason)
    },
  })
  // Like a fetch body: aborting the request errors the stream with an AbortError.
  const abortWith = (signal: AbortSignal | null | undefined) =>
    signal?.addEventListener('abort', () => fail(new DOMException('The operation was aborted.', 'AbortError')))
  return { stream, push: (text: string) => push(text), close: () => close(), abortWith }
}

/** The `data:` payloads of a recorded stream, parsed. */
export function chunksOf(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .map((block) => block.replace(/^data: /, '').trim())
    .filter((data) => data && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, unknown>)
}
