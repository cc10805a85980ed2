import tools from '@/test/fixtures/tools.sse?raw'
import { chunksOf, controlledStream, streamOf } from '@/test/sse'
import { readEventData } from './sse'

async function collect(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = []
  for await (const data of readEventData(stream)) out.push(data)
  return out
}

describe('readEventData', () => {
  it.each([1, 7, 64, 4096])('reads a recorded stream split every %i bytes', async (size) => {
    const events = await collect(streamOf(tools, size))
    expect(events.map((data) => JSON.parse(data))).toEqual(chunksOf(tools))
    expect(events.at(0)).toContain('"type":"start"')
  })

  it('stops at [DONE] and ignores what follows', async () => {
    const events = await collect(streamOf('data: {"a":1}\n\ndata: [DONE]\n\ndata: {"b":2}\n\n'))
    expect(events).toEqual(['{"a":1}'])
  })

  it('accepts CRLF, comments, multi-line data and a last event without a blank line', async () => {
    const text = ': ping\r\n\r\ndata: {"x":\r\ndata: 1}\r\n\r\nevent: message\ndata: last'
    expect(await collect(streamOf(text, 3))).toEqual(['{"x":\n1}', 'last'])
  })

  it('decodes multi-byte characters split across reads', async () => {
    const events = await collect(streamOf('data: {"t":"“Où” — ✓"}\n\n', 1))
    expect(JSON.parse(events[0]!)).toEqual({ t: '“Où” — ✓' })
  })

  it('yields each event as soon as it arrives, before the stream ends', async () => {
    const { stream, push, close } = controlledStream()
    const reader = readEventData(stream)
    push('data: {"type":"text-delta","delta":"Hel"}\n\ndata: {"type":"text-de')
    const first = await reader.next()
    expect(first.value).toBe('{"type":"text-delta","delta":"Hel"}')
    push('lta","delta":"lo"}\n\n')
    expect((await reader.next()).value).toBe('{"type":"text-delta","delta":"lo"}')
    close()
    expect((await reader.next()).done).toBe(true)
  })
})
