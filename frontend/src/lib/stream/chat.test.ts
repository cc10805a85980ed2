import tools from '@/test/fixtures/tools.sse?raw'
import { streamOf } from '@/test/sse'
import { ApiError } from '../api/client'
import { streamChat } from './chat'

afterEach(() => vi.unstubAllGlobals())

describe('streamChat', () => {
  it('posts multipart form data and yields parsed chunks', async () => {
    const fetch = vi.fn(async () => new Response(streamOf(tools), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }))
    vi.stubGlobal('fetch', fetch)
    const file = new File(['hello'], 'note.txt', { type: 'text/plain' })
    const chunks = []
    const signal = new AbortController().signal
    for await (const chunk of streamChat({ slug: 'a.b', message: 'hi', files: [file], conversationId: 'c1', model: 'demo', signal })) chunks.push(chunk)
    expect(chunks[0]!.type).toBe('start')
    expect(chunks.at(-1)!.type).toBe('finish')
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit]
    expect(url).toBe('/api/agents/a.b/chat')
    expect(init.method).toBe('POST')
    expect(init.signal).toBe(signal)
    const form = init.body as FormData
    expect(form.get('message')).toBe('hi')
    expect(form.get('conversation_id')).toBe('c1')
    expect(form.get('model')).toBe('demo')
    expect((form.getAll('attachments')[0] as File).name).toBe('note.txt')
    expect(form.get('sdk_version')).toBe('6')
    expect(form.has('decisions')).toBe(false)
  })

  it('sends decisions as one JSON field beside an empty message', async () => {
    const fetch = vi.fn(async () => new Response(streamOf(tools), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }))
    vi.stubGlobal('fetch', fetch)
    const decisions = { c1: { approved: true as const }, c2: { approved: false as const, reason: 'no' }, c3: { result: [1, 2] } }
    const request = { slug: 'a', message: '', files: [], conversationId: 'c9', model: null, signal: new AbortController().signal, decisions }
    for await (const _ of streamChat(request)) void _
    const form = (fetch.mock.calls[0] as unknown as [string, RequestInit])[1].body as FormData
    expect(form.get('decisions')).toBe('{"c1":{"approved":true},"c2":{"approved":false,"reason":"no"},"c3":{"result":[1,2]}}')
    expect(form.get('message')).toBe('')
    expect(form.get('conversation_id')).toBe('c9')
    expect(form.get('sdk_version')).toBe('6')
  })

  it('turns a refused request into an ApiError with the server message', async () => {
    vi.stubGlobal('fetch', async () =>
      Response.json({ error: { code: 'too_large', message: 'Attachments are limited to 10 MB.' } }, { status: 413 }),
    )
    const run = async () => {
      for await (const _ of streamChat({ slug: 'a', message: 'x', files: [], conversationId: null, model: null, signal: new AbortController().signal })) void _
    }
    await expect(run()).rejects.toMatchObject({ name: 'ApiError', status: 413, code: 'too_large', message: 'Attachments are limited to 10 MB.' })
    await expect(run()).rejects.toBeInstanceOf(ApiError)
  })
})
