// The playground with a run that pauses on tool calls, against a fake server: the live turn and
// its stored replay show the same card, the composer waits, every decision goes out in one request,
// and the resumed turn's answer follows the decided card. Refused decisions change nothing.
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import { App } from '@/app/App'
import type { AgentInfo, ConversationDetail } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'
import { controlledStream } from '@/test/sse'

const SLUG = 'demo.files'
const CONVERSATION = '0193aaaa-0000-7000-8000-000000000002'
const CREATED = '2026-11-30T06:00:00.000Z'

// Only what the playground reads (the agent's schema has more).
const agent = {
  slug: SLUG, name: 'files', label: null, suggestions: [], module: 'demo', attribute: 'files', file: null, description: 'Tidies files.',
  model: { provider: 'synapse', name: 'synapse-demo', id: 'demo', is_demo: true, fallbacks: [] },
  counts: { tools: 1, native_tools: 0, toolsets: 1, mcp_toolsets: 0, capabilities: 0, subagents: 0 },
  stateless: false, structured_output: false, problems: [], configured: false, version: null,
  model_settings: null, model_settings_dynamic: null, retries: { tools: 1, output: null }, end_strategy: 'early', tool_timeout: null,
  output: { type: 'str', mode: null, schema: null, schema_error: null }, deps: { type: null, factory: null, required: false },
  instructions: [], toolsets: [], native_tools: [], subagents: [], capabilities: [], metadata: null, unavailable: [],
  tools: [{ name: 'delete_file', description: 'Delete a file.', parameters: { type: 'object', properties: {} }, required: [], schema_error: null, toolset: 'agent', kind: 'function', takes_ctx: false, requires_approval: true, location: null }],
} as unknown as AgentInfo

type Message = ConversationDetail['messages'][number]
const event = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`
const meta = (extra: object = {}) => ({ conversation_id: CONVERSATION, message_id: 'm2', user_message_id: 'm1', model: 'synapse-demo', provider: 'synapse', ...extra })

/** A stored call as a thread shows it (`id` is its row). */
const row = (id: string, callId: string, path: string, status: string, over: object = {}) => ({
  type: 'tool',
  tool: { id, tool_call_id: callId, kind: 'function', name: 'delete_file', arguments: { path }, result: null, status, duration_ms: null, provider_status: 'approval', ...over },
})

const question: Message = { id: 'm1', copied_from_id: null, role: 'user', status: 'complete', content: 'Delete a.txt and b.txt', created_at: CREATED, attachments: [] }
const pausedAnswer = (calls: object[]): Message =>
  ({ id: 'm2', copied_from_id: null, role: 'assistant', status: 'complete', content: '', created_at: CREATED, parts: calls, usage: { input_tokens: 20, output_tokens: 9 }, input_tokens: 20, output_tokens: 9, cost: null, duration_ms: 4321, meta: { model: 'synapse-demo', provider: 'synapse' } }) as unknown as Message

function detailOf(messages: Message[]): ConversationDetail {
  return ({
    conversation: { id: CONVERSATION, agent_key: SLUG, agent_name: 'files', title: 'Delete a.txt and b.txt', status: 'success', origin: 'playground', tenant: null, actor: null, subject: null, forked_from_id: null, forked_from: null, forks: [], input_tokens: 20, output_tokens: 9, total_tokens: 29, cost: null, message_count: messages.length, tool_count: 2, created_at: CREATED, updated_at: CREATED, stateless: false, agent_available: true, deps_values: null },
    messages,
    totals: { input_tokens: 20, output_tokens: 9, cost: null, duration_ms: 300, tool_calls: 2 },
  }) as unknown as ConversationDetail
}

const paused = detailOf([question, pausedAnswer([row('inv1', 'c1', 'a.txt', 'awaiting'), row('inv2', 'c2', 'b.txt', 'awaiting')])])
const resumed = detailOf([
  question,
  pausedAnswer([row('inv1', 'c1', 'a.txt', 'approved'), row('inv2', 'c2', 'b.txt', 'denied', { error: 'too risky' })]),
  { id: 'm3', copied_from_id: null, role: 'user', status: 'complete', content: 'Approved delete_file.\nDenied delete_file: too risky', created_at: CREATED, attachments: [] },
  { id: 'm4', copied_from_id: null, role: 'assistant', status: 'complete', content: 'Deleted a.txt; b.txt stays.', created_at: CREATED, parts: [row('inv3', 'c1', 'a.txt', 'success', { provider_status: null, result: 'deleted a.txt', duration_ms: 5 }), { type: 'text', text: 'Deleted a.txt; b.txt stays.' }], usage: { input_tokens: 30, output_tokens: 8 }, input_tokens: 30, output_tokens: 8, cost: null, duration_ms: 200, meta: { model: 'synapse-demo', provider: 'synapse' } } as unknown as Message,
])

interface Server {
  requests: { url: string; init?: RequestInit }[]
  chats: () => FormData[]
  reads: () => number
  setDetail: (detail: ConversationDetail) => void
}

/** Chat requests answer with the next of `answers`: a stream, or a JSON error response. */
function fakeServer(answers: (ReturnType<typeof controlledStream> | Response)[], initial: ConversationDetail = paused): Server {
  const requests: Server['requests'] = []
  let detail = initial
  let next = 0
  vi.stubGlobal('fetch', vi.fn(async (url: string, init?: RequestInit) => {
    requests.push({ url, init })
    if (url === `/api/agents/${SLUG}/chat`) {
      const answer = answers[next++]!
      if (answer instanceof Response) return answer
      answer.abortWith(init?.signal)
      return new Response(answer.stream, { headers: { 'Content-Type': 'text/event-stream' } })
    }
    if (url === `/api/agents/${SLUG}`) return Response.json(agent)
    if (url === `/api/agents/${SLUG}/models`) return Response.json({ default: 'demo', models: [{ id: 'demo', label: 'Synapse demo model', provider: 'synapse', source: 'agent', available: true, missing_env: null }] })
    if (url === '/api/agents') return Response.json({ agents: [agent], problems: [], targets: ['demo'], project_root: '/p' })
    if (url === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: null, up_to_date: true })
    if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, page: 1, page_size: 25, pages: 0 })
    if (url === `/api/conversations/${CONVERSATION}`) return Response.json(detail)
    return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
  }))
  return {
    requests,
    chats: () => requests.filter((r) => r.url.endsWith('/chat')).map((r) => r.init!.body as FormData),
    reads: () => requests.filter((r) => r.url === `/api/conversations/${CONVERSATION}`).length,
    setDetail: (value) => {
      detail = value
    },
  }
}

const card = () => screen.getByTestId('approval-card')
const calls = () => within(card()).getAllByTestId('approval-call')
const composer = () => screen.getByRole('textbox', { name: 'Message' })
const HINT = 'Approve or deny the tool calls above to continue'

beforeEach(() => {
  resetResources()
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => setTimeout(() => callback(0), 0))
})
afterEach(() => vi.unstubAllGlobals())
beforeAll(async () => {
  await import('./PlaygroundPage')
})

describe('a run that pauses on tool calls', () => {
  it('live, then stored, the same card; the decisions go out together and the answer follows', async () => {
    const first = controlledStream()
    const second = controlledStream()
    const server = fakeServer([first, second])
    render(
      <MemoryRouter initialEntries={[`/agents/${SLUG}`]}>
        <App />
      </MemoryRouter>,
    )
    await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'Delete a.txt and b.txt{Enter}')
    expect(server.chats()[0]!.get('sdk_version')).toBe('6')

    await act(async () => {
      first.push(event({ type: 'start', messageId: 'm2', messageMetadata: meta() }))
      for (const [id, path] of [['c1', 'a.txt'], ['c2', 'b.txt']]) {
        first.push(event({ type: 'tool-input-start', toolCallId: id, toolName: 'delete_file' }))
        first.push(event({ type: 'tool-input-available', toolCallId: id, toolName: 'delete_file', input: { path } }))
      }
      for (const [id, path] of [['c1', 'a.txt'], ['c2', 'b.txt']]) {
        first.push(event({ type: 'data-tool-approval', id, data: { tool_call_id: id, tool_name: 'delete_file', args: { path }, kind: 'approval' } }))
        first.push(event({ type: 'tool-approval-request', approvalId: id, toolCallId: id }))
      }
      first.push(event({ type: 'finish', finishReason: 'tool-calls', messageMetadata: meta({ usage: { input_tokens: 20, output_tokens: 9 }, duration_ms: 300, awaiting: ['c1', 'c2'] }) }))
    })
    // Live: no spinner left, each card says what it waits for, and the composer waits too.
    await waitFor(() => expect(screen.getAllByTestId('tool-card').map((c) => c.getAttribute('data-status'))).toEqual(['awaiting', 'awaiting']))
    expect(screen.getAllByText('Awaiting approval')).toHaveLength(2)
    expect(within(card()).getAllByText('"a.txt"')).toHaveLength(1)
    expect(composer()).toBeDisabled()
    expect(composer()).toHaveAttribute('placeholder', HINT)
    const liveCard = card()

    await act(async () => first.close())
    // The stored replay takes over (its duration, not the live one): the same card in the same place.
    await waitFor(() => expect(within(screen.getByTestId('assistant-message')).getByTestId('message-meta')).toHaveTextContent('4.32 s'))
    expect(card()).toBe(liveCard)
    expect(screen.getAllByText('Awaiting approval')).toHaveLength(2)
    expect(composer()).toBeDisabled()

    const send = within(card()).getByRole('button', { name: 'Send decisions' })
    await waitFor(() => expect(within(calls()[1]!).getByRole('button', { name: 'Deny' })).toBeEnabled())
    await userEvent.click(within(calls()[0]!).getByRole('button', { name: 'Approve' }))
    expect(send).toBeDisabled()
    await userEvent.click(within(calls()[1]!).getByRole('button', { name: 'Deny' }))
    await userEvent.type(within(calls()[1]!).getByRole('textbox', { name: /Reason/ }), 'too risky')
    await userEvent.click(send)

    const form = server.chats()[1]!
    expect(form.get('decisions')).toBe('{"c1":{"approved":true},"c2":{"approved":false,"reason":"too risky"}}')
    expect(form.get('message')).toBe('')
    expect(form.get('conversation_id')).toBe(CONVERSATION)
    expect(form.get('sdk_version')).toBe('6')
    expect(form.has('attachments')).toBe(false)
    // While the run resumes the card reads decided, and the decisions read in words below it.
    await waitFor(() => expect(within(calls()[0]!).getByText('Approved')).toBeInTheDocument())
    expect(within(calls()[1]!).getByText('Denied: too risky')).toBeInTheDocument()
    expect(screen.getAllByTestId('user-message')[1]).toHaveTextContent('Approved delete_file. Denied delete_file: too risky')

    server.setDetail(resumed)
    await act(async () => {
      second.push(event({ type: 'start', messageId: 'm4', messageMetadata: meta({ message_id: 'm4', user_message_id: 'm3' }) }))
      second.push(event({ type: 'tool-input-start', toolCallId: 'c1', toolName: 'delete_file' }))
      second.push(event({ type: 'tool-input-available', toolCallId: 'c1', toolName: 'delete_file', input: { path: 'a.txt' } }))
      second.push(event({ type: 'tool-output-available', toolCallId: 'c1', output: 'deleted a.txt' }))
      second.push(event({ type: 'text-start', id: 't' }) + event({ type: 'text-delta', id: 't', delta: 'Deleted a.txt; b.txt stays.' }) + event({ type: 'text-end', id: 't' }))
      second.push(event({ type: 'finish', finishReason: 'stop', messageMetadata: meta({ message_id: 'm4', user_message_id: 'm3', usage: { input_tokens: 30, output_tokens: 8 }, duration_ms: 200 }) }))
      second.close()
    })
    await waitFor(() => expect(screen.getAllByTestId('assistant-message')[1]).toHaveTextContent('Deleted a.txt; b.txt stays.'))
    // Handed to the replay: the decided card, the decisions, then the answer with the call that ran.
    await waitFor(() => expect(server.reads()).toBeGreaterThanOrEqual(2))
    await waitFor(() => expect(composer()).toBeEnabled())
    expect(screen.getAllByTestId('assistant-message')).toHaveLength(2)
    expect(screen.getAllByTestId('user-message')).toHaveLength(2)
    expect(within(calls()[0]!).getByText('Approved')).toBeInTheDocument()
    expect(within(calls()[1]!).getByText('Denied: too risky')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Send decisions' })).not.toBeInTheDocument()
    const answer = screen.getAllByTestId('assistant-message')[1]!
    expect(within(answer).getByTestId('tool-card')).toHaveAttribute('data-status', 'success')
    expect(composer()).not.toHaveAttribute('placeholder', HINT)
  })

  it('decisions already taken elsewhere: the card says so and the thread is read again', async () => {
    const refused = Response.json({ error: { code: 'not_awaiting', message: 'These tool calls were already decided.' } }, { status: 409 })
    const server = fakeServer([refused])
    render(
      <MemoryRouter initialEntries={[`/agents/${SLUG}/c/${CONVERSATION}`]}>
        <App />
      </MemoryRouter>,
    )
    await waitFor(() => expect(calls()).toHaveLength(2))
    expect(composer()).toBeDisabled()
    expect(composer()).toHaveAttribute('placeholder', HINT)
    await waitFor(() => expect(within(calls()[1]!).getByRole('button', { name: 'Approve' })).toBeInTheDocument())
    for (const call of calls()) await userEvent.click(within(call).getByRole('button', { name: 'Approve' }))
    const reads = server.reads()
    server.setDetail(detailOf([question, pausedAnswer([row('inv1', 'c1', 'a.txt', 'approved'), row('inv2', 'c2', 'b.txt', 'denied')])]))
    await userEvent.click(within(card()).getByRole('button', { name: 'Send decisions' }))

    expect(server.chats()[0]!.get('decisions')).toBe('{"c1":{"approved":true},"c2":{"approved":true}}')
    await waitFor(() => expect(within(card()).getByRole('alert')).toHaveTextContent('These tool calls were already decided.'))
    await waitFor(() => expect(server.reads()).toBeGreaterThan(reads))
    // What the server holds: decided elsewhere, one each way; nothing was added to the thread.
    await waitFor(() => expect(within(calls()[1]!).getByText('Denied')).toBeInTheDocument())
    expect(within(calls()[0]!).getByText('Approved')).toBeInTheDocument()
    expect(screen.getAllByTestId('user-message')).toHaveLength(1)
    expect(screen.queryByTestId('error-card')).not.toBeInTheDocument()
    expect(composer()).toBeEnabled()
  })

  it('a refused message while calls wait reads the thread again, so the card appears', async () => {
    const refused = Response.json({ error: { code: 'approval_pending', message: 'This conversation is waiting for a decision on a tool call.' } }, { status: 409 })
    const server = fakeServer([refused], detailOf([question, pausedAnswer([{ type: 'text', text: 'Which files?' }])]))
    render(
      <MemoryRouter initialEntries={[`/agents/${SLUG}/c/${CONVERSATION}`]}>
        <App />
      </MemoryRouter>,
    )
    await waitFor(() => expect(composer()).toBeEnabled())
    server.setDetail(paused)
    await userEvent.type(composer(), 'And c.txt?{Enter}')
    const error = await screen.findByTestId('error-card')
    expect(error).toHaveTextContent('This conversation is waiting for a decision on a tool call.')
    await waitFor(() => expect(calls()).toHaveLength(2))
    expect(composer()).toBeDisabled()
  })
})
