// The playground against a fake server: a message goes out as multipart, the answer paints while
// the stream is still open, the URL takes the new conversation's id, Stop aborts the request, and
// the finished turn is handed to the stored replay without showing twice.
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, useLocation } from 'react-router'
import { App } from '@/app/App'
import type { AgentInfo, ConversationDetail } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'
import { demoAgent } from '@/test/agents'
import { controlledStream } from '@/test/sse'

const SLUG = 'demo.support-agent'
const CONVERSATION = '0193aaaa-0000-7000-8000-000000000001'

const agent: AgentInfo = demoAgent(SLUG, {
  counts: { tools: 1, native_tools: 0, toolsets: 1, mcp_toolsets: 0, capabilities: 0, subagents: 0 },
  instructions: [{ kind: 'static', source: 'instructions', text: 'Be kind.', template: false, name: null, location: null }],
  tools: [{ name: 'lookup_order', description: 'Find an order.', parameters: { type: 'object', properties: {} }, required: [], schema_error: null, toolset: 'agent', kind: 'function', takes_ctx: false, requires_approval: false, location: null, max_retries: null, prepare: null, native_fallback: null }],
})

const meta = (extra: object = {}) => ({ conversation_id: CONVERSATION, message_id: 'm2', user_message_id: 'm1', model: 'synapse-demo', provider: 'synapse', ...extra })
const event = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`

const stored: ConversationDetail = {
  conversation: { id: CONVERSATION, agent_key: SLUG, agent_name: 'support_agent', title: 'Where is A-1001?', status: 'success', origin: 'playground', tenant: null, actor: null, subject: null, forked_from_id: null, forked_from: null, forks: [], input_tokens: 12, output_tokens: 5, total_tokens: 17, cost: null, message_count: 2, tool_count: 0, created_at: '2026-11-30T06:00:00.000Z', updated_at: '2026-11-30T06:00:01.000Z', stateless: false, agent_available: true, deps_values: null },
  messages: [
    { id: 'm1', copied_from_id: null, role: 'user', status: 'complete', content: 'Where is A-1001?', created_at: '2026-11-30T06:00:00.000Z', attachments: [] },
    { id: 'm2', copied_from_id: null, role: 'assistant', status: 'complete', content: 'It shipped yesterday.', created_at: '2026-11-30T06:00:00.000Z', parts: [{ type: 'text', text: 'It shipped yesterday.' }], usage: { input_tokens: 12, output_tokens: 5 }, input_tokens: 12, output_tokens: 5, cost: null, duration_ms: 800, meta: { model: 'synapse-demo', provider: 'synapse' } },
  ],
  totals: { input_tokens: 12, output_tokens: 5, cost: null, duration_ms: 800, tool_calls: 0 },
}

function fakeServer({ stream, abortWith }: ReturnType<typeof controlledStream>, detail: ConversationDetail = stored) {
  const requests: { url: string; init?: RequestInit }[] = []
  const fetch = vi.fn(async (url: string, init?: RequestInit) => {
    requests.push({ url, init })
    if (url === `/api/agents/${SLUG}/chat`) {
      abortWith(init?.signal)
      return new Response(stream, { headers: { 'Content-Type': 'text/event-stream' } })
    }
    if (url === `/api/agents/${SLUG}`) return Response.json(agent)
    if (url === `/api/agents/${SLUG}/models`) return Response.json({ default: 'demo', models: [{ id: 'demo', label: 'Synapse demo model', provider: 'synapse', source: 'agent', available: true, missing_env: null }] })
    if (url === '/api/agents') return Response.json({ agents: [agent], problems: [], targets: ['demo'], project_root: '/p' })
    if (url === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: null, up_to_date: true })
    if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, page: 1, page_size: 25, pages: 0 })
    if (url === `/api/conversations/${CONVERSATION}`) return Response.json(detail)
    return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
  })
  vi.stubGlobal('fetch', fetch)
  return requests
}

function Where() {
  return <output data-testid="where">{useLocation().pathname}</output>
}

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <App />
      <Where />
    </MemoryRouter>,
  )
}

beforeEach(() => {
  resetResources()
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => setTimeout(() => callback(0), 0))
})
afterEach(() => vi.unstubAllGlobals())

// The app loads the playground on demand: have its module ready before the first test waits for it.
beforeAll(async () => {
  await import('./PlaygroundPage')
})

describe('the playground', () => {
  it('streams an answer into the thread as it arrives, then hands it to the replay', async () => {
    const server = controlledStream()
    const { push, close } = server
    const requests = fakeServer(server)
    renderAt(`/agents/${SLUG}`)
    const box = await screen.findByRole('textbox', { name: 'Message' })
    await userEvent.type(box, 'Where is A-1001?{Enter}')

    const chat = requests.find((r) => r.url.endsWith('/chat'))!
    expect((chat.init!.body as FormData).get('message')).toBe('Where is A-1001?')
    expect((chat.init!.body as FormData).has('conversation_id')).toBe(false)
    expect(screen.getByTestId('user-message')).toHaveTextContent('Where is A-1001?')
    expect(screen.getByRole('button', { name: 'Stop (Esc)' })).toBeInTheDocument()

    await act(async () => {
      push(event({ type: 'start', messageId: 'm2', messageMetadata: meta() }))
      push(event({ type: 'text-start', id: 't' }) + event({ type: 'text-delta', id: 't', delta: 'It shipped ' }))
    })
    const answer = await screen.findByTestId('assistant-message')
    await waitFor(() => expect(answer).toHaveTextContent('It shipped'))
    expect(answer).toHaveAttribute('aria-busy', 'true')
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(`/agents/${SLUG}/c/${CONVERSATION}`))
    // Not read back while its first turn runs (the server may not have stored it yet).
    expect(requests.some((r) => r.url === `/api/conversations/${CONVERSATION}`)).toBe(false)

    await act(async () => {
      push(event({ type: 'text-delta', id: 't', delta: 'yesterday.' }) + event({ type: 'text-end', id: 't' }))
      push(event({ type: 'finish', finishReason: 'stop', messageMetadata: meta({ usage: { input_tokens: 12, output_tokens: 5 }, duration_ms: 800 }) }))
      push('data: [DONE]\n\n')
      close()
    })
    await waitFor(() => expect(screen.getByTestId('assistant-message')).toHaveAttribute('aria-busy', 'false'))
    expect(screen.getByTestId('assistant-message')).toHaveTextContent('It shipped yesterday.')
    expect(within(screen.getByTestId('assistant-message')).getByTestId('message-meta')).toHaveTextContent('12')
    // The replay took over: one exchange on screen, not two.
    await waitFor(() => expect(requests.some((r) => r.url === `/api/conversations/${CONVERSATION}`)).toBe(true))
    await waitFor(() => expect(screen.getAllByTestId('user-message')).toHaveLength(1))
    expect(screen.getAllByTestId('assistant-message')).toHaveLength(1)
    expect(screen.getByTestId('conversation-title')).toHaveTextContent('Where is A-1001?')
  })

  it('the stored replay takes over without remounting: an opened tool card stays open', async () => {
    const server = controlledStream()
    const withTool: ConversationDetail = {
      ...stored,
      messages: [
        stored.messages[0]!,
        { ...stored.messages[1]!, parts: [{ type: 'tool', tool: { id: 'inv1', kind: 'function', name: 'lookup_order', arguments: { order_id: 'A-1001' }, result: { status: 'shipped' }, status: 'success', error: null, duration_ms: 4321 } }, { type: 'text', text: 'It shipped yesterday.' }] } as ConversationDetail['messages'][number],
      ],
    }
    const requests = fakeServer(server, withTool)
    renderAt(`/agents/${SLUG}`)
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'Where is A-1001?{Enter}')
    await act(async () => {
      server.push(event({ type: 'start', messageMetadata: meta() }))
      server.push(event({ type: 'tool-input-start', toolCallId: 'call_1', toolName: 'lookup_order' }))
      server.push(event({ type: 'tool-input-available', toolCallId: 'call_1', toolName: 'lookup_order', input: { order_id: 'A-1001' } }))
      server.push(event({ type: 'tool-output-available', toolCallId: 'call_1', output: { status: 'shipped' } }))
    })
    const header = await screen.findByRole('button', { name: /lookup_order/ })
    await userEvent.click(header)
    expect(header).toHaveAttribute('aria-expanded', 'true')
    await act(async () => {
      server.push(event({ type: 'text-start', id: 't' }) + event({ type: 'text-delta', id: 't', delta: 'It shipped yesterday.' }) + event({ type: 'text-end', id: 't' }))
      server.push(event({ type: 'finish', messageMetadata: meta({ usage: { input_tokens: 12, output_tokens: 5 }, duration_ms: 800 }) }))
      server.close()
    })
    await waitFor(() => expect(requests.some((r) => r.url === `/api/conversations/${CONVERSATION}`)).toBe(true))
    // The stored copy is on screen (its duration, not the one the browser measured)...
    await waitFor(() => expect(screen.getByTestId('tool-card')).toHaveTextContent('4.32 s'))
    // ...in the same components: still open, the very same button.
    expect(screen.getByRole('button', { name: /lookup_order/ })).toHaveAttribute('aria-expanded', 'true')
    expect(screen.getByRole('button', { name: /lookup_order/ })).toBe(header)
  })

  it('Stop aborts the request and marks the answer stopped', async () => {
    const server = controlledStream()
    const { push } = server
    const requests = fakeServer(server)
    renderAt(`/agents/${SLUG}`)
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'Tell me a story{Enter}')
    await act(async () => push(event({ type: 'text-start', id: 't' }) + event({ type: 'text-delta', id: 't', delta: 'Once' })))
    await waitFor(() => expect(screen.getByTestId('assistant-message')).toHaveTextContent('Once'))
    await userEvent.click(screen.getByRole('button', { name: 'Stop (Esc)' }))
    const signal = requests.find((r) => r.url.endsWith('/chat'))!.init!.signal!
    expect(signal.aborted).toBe(true)
    await waitFor(() => expect(screen.getByTestId('message-meta')).toHaveTextContent('stopped'))
    expect(screen.getByRole('button', { name: 'Send (Enter)' })).toBeInTheDocument()
  })

  it('leaving the playground aborts the running request', async () => {
    const server = controlledStream()
    const requests = fakeServer(server)
    const view = renderAt(`/agents/${SLUG}`)
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'Hello{Enter}')
    await act(async () => server.push(event({ type: 'start', messageMetadata: meta() })))
    const signal = requests.find((r) => r.url.endsWith('/chat'))!.init!.signal!
    expect(signal.aborted).toBe(false)
    view.unmount()
    expect(signal.aborted).toBe(true)
  })

  it('a refused request shows its error and keeps the message', async () => {
    vi.stubGlobal('fetch', vi.fn(async (url: string) =>
      url.endsWith('/chat')
        ? Response.json({ error: { code: 'too_large', message: 'Attachments are limited to 10 MB.' } }, { status: 413 })
        : url === `/api/agents/${SLUG}` ? Response.json(agent) : Response.json({ error: { code: 'not_found', message: 'x' } }, { status: 404 }),
    ))
    renderAt(`/agents/${SLUG}`)
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'big file{Enter}')
    const card = await screen.findByTestId('error-card')
    expect(card).toHaveTextContent('413 too_large')
    expect(card).toHaveTextContent('Attachments are limited to 10 MB.')
    expect(screen.getByTestId('user-message')).toHaveTextContent('big file')
  })

  it('an unknown conversation offers a new one in place of the composer, and that one can be sent to', async () => {
    const server = controlledStream()
    const requests = fakeServer(server)
    renderAt(`/agents/${SLUG}/c/0193ffff-0000-7000-8000-00000000dead`)
    const offer = await screen.findByRole('button', { name: 'Start a new conversation with support_agent' })
    expect(screen.getByRole('alert')).toHaveTextContent('Not found')
    expect(screen.queryByRole('textbox', { name: 'Message' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Send (Enter)' })).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Clear conversation' })).toBeDisabled()

    await userEvent.click(offer)
    expect(screen.getByTestId('where')).toHaveTextContent(new RegExp(`^/agents/${SLUG}$`))
    expect(await screen.findByTestId('playground-empty')).toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    const box = screen.getByRole('textbox', { name: 'Message' })
    expect(box).toBeEnabled()
    await userEvent.type(box, 'Hello{Enter}')
    const chat = requests.find((r) => r.url.endsWith('/chat'))!
    expect((chat.init!.body as FormData).has('conversation_id')).toBe(false)
  })
})
