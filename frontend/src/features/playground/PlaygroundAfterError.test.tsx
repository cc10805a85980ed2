// A turn after a provider's error card stays on screen: the stored error row has an id of its own
// (not the answer id the stream announced), and the hand-over of the failed turn must not leave a
// live copy behind that hides the stored turns after it.
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import { App } from '@/app/App'
import type { AgentInfo, ConversationDetail, ReplayMessage } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'
import { demoAgent } from '@/test/agents'
import { streamOf } from '@/test/sse'

const SLUG = 'demo.support-agent'
const CONVERSATION = '0193aaaa-0000-7000-8000-000000000002'

const agent: AgentInfo = demoAgent(SLUG)

const event = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`
const meta = (answer: string, user: string, extra: object = {}) => ({ conversation_id: CONVERSATION, message_id: answer, user_message_id: user, model: 'synapse-demo', provider: 'synapse', ...extra })
const AT = '2026-11-30T06:00:00.000Z'

// As `synapse serve --demo` streams a 429: the answer id announced at the start, then the error.
const rateLimited =
  event({ type: 'start', messageId: 'a1', messageMetadata: meta('a1', 'u1') }) +
  event({ type: 'data-error', data: { class: 'ModelRateLimitError', message: '429 Rate limit reached.', traceback: null, recoverable: true, provider: null } }) +
  event({ type: 'error', errorText: 'ModelRateLimitError: 429 Rate limit reached.' }) +
  event({ type: 'finish', finishReason: 'error', messageMetadata: meta('a1', 'u1') }) +
  'data: [DONE]\n\n'

const answered =
  event({ type: 'start', messageId: 'a2', messageMetadata: meta('a2', 'u2') }) +
  event({ type: 'text-start', id: 't' }) +
  event({ type: 'text-delta', id: 't', delta: 'Here is the weather.' }) +
  event({ type: 'text-end', id: 't' }) +
  event({ type: 'finish', finishReason: 'stop', messageMetadata: meta('a2', 'u2', { usage: { input_tokens: 9, output_tokens: 4 }, duration_ms: 30 }) }) +
  'data: [DONE]\n\n'

// What the store holds: the failed turn as its user message and an error row with its own id.
const errorTurn: ReplayMessage[] = [
  { id: 'u1', copied_from_id: null, role: 'user', status: 'complete', content: 'rate limit please', created_at: AT, attachments: [] },
  { id: 'e1', copied_from_id: null, role: 'error', status: 'complete', content: '429 Rate limit reached.', created_at: AT, details: { class: 'ModelRateLimitError', traceback: null, recoverable: true } } as ReplayMessage,
]
const answerTurn: ReplayMessage[] = [
  { id: 'u2', copied_from_id: null, role: 'user', status: 'complete', content: 'And the weather?', created_at: AT, attachments: [] },
  { id: 'a2', copied_from_id: null, role: 'assistant', status: 'complete', content: 'Here is the weather.', created_at: AT, parts: [{ type: 'text', text: 'Here is the weather.' }], usage: { input_tokens: 9, output_tokens: 4 }, input_tokens: 9, output_tokens: 4, cost: null, duration_ms: 30, meta: { model: 'synapse-demo', provider: 'synapse' } } as ReplayMessage,
]

function detail(messages: ReplayMessage[]): ConversationDetail {
  const answers = messages.filter((m) => m.role === 'assistant').length
  return {
    conversation: { id: CONVERSATION, agent_key: SLUG, agent_name: 'support_agent', title: 'rate limit please', status: 'success', origin: 'playground', tenant: null, actor: null, subject: null, forked_from_id: null, forked_from: null, forks: [], input_tokens: 9 * answers, output_tokens: 4 * answers, total_tokens: 13 * answers, cost: null, message_count: messages.length, tool_count: 0, created_at: AT, updated_at: AT, stateless: false, agent_available: true, deps_values: null },
    messages,
    totals: { input_tokens: 9 * answers, output_tokens: 4 * answers, cost: null, duration_ms: 30 * answers, tool_calls: 0 },
  }
}

function fakeServer() {
  const requests: string[] = []
  let chats = 0
  vi.stubGlobal('fetch', vi.fn(async (url: string) => {
    requests.push(url)
    if (url === `/api/agents/${SLUG}/chat`) {
      chats += 1
      return new Response(streamOf(chats === 1 ? rateLimited : answered), { headers: { 'Content-Type': 'text/event-stream' } })
    }
    if (url === `/api/agents/${SLUG}`) return Response.json(agent)
    if (url === `/api/agents/${SLUG}/models`) return Response.json({ default: 'demo', models: [{ id: 'demo', label: 'Synapse demo model', provider: 'synapse', source: 'agent', available: true, missing_env: null }] })
    if (url === '/api/agents') return Response.json({ agents: [agent], problems: [], targets: ['demo'], project_root: '/p' })
    if (url === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: null, up_to_date: true })
    if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, page: 1, page_size: 25, pages: 0 })
    if (url === `/api/conversations/${CONVERSATION}`) return Response.json(detail(chats === 1 ? errorTurn : [...errorTurn, ...answerTurn]))
    return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
  }))
  return requests
}

beforeEach(() => {
  resetResources()
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => setTimeout(() => callback(0), 0))
})
afterEach(() => vi.unstubAllGlobals())

beforeAll(async () => {
  await import('./PlaygroundPage')
})

it('the answer after an error card stays on screen once the store has both turns', async () => {
  const requests = fakeServer()
  render(
    <MemoryRouter initialEntries={[`/agents/${SLUG}`]}>
      <App />
    </MemoryRouter>,
  )
  const box = await screen.findByRole('textbox', { name: 'Message' })
  await userEvent.type(box, 'rate limit please{Enter}')
  await screen.findByText(/429 Rate limit reached/)
  // The failed turn is handed to the stored replay (its error row read back).
  await waitFor(() => expect(requests.filter((url) => url === `/api/conversations/${CONVERSATION}`).length).toBeGreaterThanOrEqual(2))
  await waitFor(() => expect(screen.queryByRole('button', { name: 'Stop (Esc)' })).toBeNull())

  const before = requests.length
  await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'And the weather?{Enter}')
  // The second turn's hand-over reads the thread back; after it, both turns are still shown.
  await waitFor(() => expect(requests.slice(before).filter((url) => url === `/api/conversations/${CONVERSATION}`).length).toBeGreaterThanOrEqual(2))
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(screen.getAllByTestId('user-message')).toHaveLength(2)
  expect(screen.getByText('Here is the weather.')).toBeInTheDocument()
  expect(screen.getByText(/429 Rate limit reached/)).toBeInTheDocument()
}, 20000)
