// A failed turn's error card is handed from the live stream to the stored replay without being
// drawn again: a traceback the user opened stays open. The store holds the card as an error row
// that takes the answer's id when nothing was answered, and an id of its own after a partial answer.
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import { App } from '@/app/App'
import type { AgentInfo, ConversationDetail, ReplayMessage } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'
import { demoAgent } from '@/test/agents'
import { streamOf } from '@/test/sse'

const SLUG = 'demo.support-agent'
const CONVERSATION = '0193aaaa-0000-7000-8000-000000000003'
const AT = '2026-11-30T06:00:00.000Z'
const TRACEBACK = 'Traceback (most recent call last):\n  File "/app/agent.py", line 3, in run\n    call()\nModelRateLimitError: 429\n'

const agent: AgentInfo = demoAgent(SLUG)

const event = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`
const meta = { conversation_id: CONVERSATION, message_id: 'a1', user_message_id: 'u1', model: 'synapse-demo', provider: 'synapse' }
const details = { class: 'ModelRateLimitError', traceback: TRACEBACK, recoverable: true }

function stream(partial: boolean): string {
  const text = partial
    ? event({ type: 'text-start', id: 't' }) + event({ type: 'text-delta', id: 't', delta: 'Looking it up' }) + event({ type: 'text-end', id: 't' })
    : ''
  return (
    event({ type: 'start', messageId: 'a1', messageMetadata: meta }) +
    text +
    event({ type: 'data-error', data: { ...details, message: '429 Rate limit reached.', provider: null } }) +
    event({ type: 'error', errorText: 'ModelRateLimitError: 429 Rate limit reached.' }) +
    event({ type: 'finish', finishReason: 'error', messageMetadata: meta }) +
    'data: [DONE]\n\n'
  )
}

// As `turn_writes.py` stores it: with no answer kept the error row takes the answer's id.
function stored(partial: boolean): ReplayMessage[] {
  const user = { id: 'u1', copied_from_id: null, role: 'user', status: 'complete', content: 'rate limit please', created_at: AT, attachments: [] }
  const error = { copied_from_id: null, role: 'error', status: 'complete', content: '429 Rate limit reached.', created_at: AT, details }
  if (!partial) return [user, { id: 'a1', ...error }] as ReplayMessage[]
  const answer = {
    id: 'a1', copied_from_id: null, role: 'assistant', status: 'interrupted', content: 'Looking it up', created_at: AT,
    parts: [{ type: 'text', text: 'Looking it up' }], usage: null, input_tokens: null, output_tokens: null, cost: null, duration_ms: null, meta: null,
  }
  return [user, answer, { id: 'e1', ...error }] as ReplayMessage[]
}

function detail(messages: ReplayMessage[]): ConversationDetail {
  return {
    conversation: { id: CONVERSATION, agent_key: SLUG, agent_name: 'support_agent', title: 'rate limit please', status: 'error', origin: 'playground', tenant: null, actor: null, subject: null, forked_from_id: null, forked_from: null, forks: [], input_tokens: 0, output_tokens: 0, total_tokens: 0, cost: null, message_count: messages.length, tool_count: 0, created_at: AT, updated_at: AT, stateless: false, agent_available: true, deps_values: null },
    messages,
    totals: { input_tokens: 0, output_tokens: 0, cost: null, duration_ms: 0, tool_calls: 0 },
  }
}

/** A server whose conversation reads wait until `release()`: the card is opened before the hand-over. */
function fakeServer(partial: boolean) {
  const reads: string[] = []
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  vi.stubGlobal('fetch', vi.fn(async (url: string) => {
    if (url === `/api/agents/${SLUG}/chat`) return new Response(streamOf(stream(partial)), { headers: { 'Content-Type': 'text/event-stream' } })
    if (url === `/api/agents/${SLUG}`) return Response.json(agent)
    if (url === `/api/agents/${SLUG}/models`) return Response.json({ default: 'demo', models: [{ id: 'demo', label: 'Synapse demo model', provider: 'synapse', source: 'agent', available: true, missing_env: null }] })
    if (url === '/api/agents') return Response.json({ agents: [agent], problems: [], targets: ['demo'], project_root: '/p' })
    if (url === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: null, up_to_date: true })
    if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, page: 1, page_size: 25, pages: 0 })
    if (url === `/api/conversations/${CONVERSATION}`) {
      await released
      reads.push(url)
      return Response.json(detail(stored(partial)))
    }
    return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
  }))
  return { reads, release }
}

beforeEach(() => {
  resetResources()
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => setTimeout(() => callback(0), 0))
})
afterEach(() => vi.unstubAllGlobals())

beforeAll(async () => {
  await import('./PlaygroundPage')
})

it.each([
  ['nothing was answered', false],
  ['part of an answer came first', true],
])('an opened traceback stays open when the stored turn takes over (%s)', async (_, partial) => {
  const server = fakeServer(partial)
  render(
    <MemoryRouter initialEntries={[`/agents/${SLUG}`]}>
      <App />
    </MemoryRouter>,
  )
  await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'rate limit please{Enter}')
  await userEvent.click(await screen.findByRole('button', { name: 'Traceback' }))
  expect(screen.getByTestId('own-frames')).toHaveTextContent('agent.py')

  server.release()
  await waitFor(() => expect(server.reads.length).toBeGreaterThanOrEqual(2))
  await waitFor(() => expect(screen.queryByRole('button', { name: 'Stop (Esc)' })).toBeNull())
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(screen.getAllByTestId('error-card')).toHaveLength(1)
  expect(screen.getByRole('button', { name: 'Traceback' })).toHaveAttribute('aria-expanded', 'true')
  expect(screen.getByTestId('own-frames')).toHaveTextContent('agent.py')
  if (partial) expect(screen.getByText('Looking it up')).toBeInTheDocument()
}, 20000)

// A compression marker arrives in the stream before the answer; the store keeps it as a notice row
// of its own after the answer. An opened summary stays open through the hand-over.
it('an opened compression summary stays open when the stored turn takes over', async () => {
  const summary = 'They talked about tides.'
  const notice = event({ type: 'data-notice', data: { kind: 'compressed', message: '3 turns summarised.', summary } })
  const answered =
    event({ type: 'start', messageId: 'a1', messageMetadata: meta }) +
    notice +
    event({ type: 'text-start', id: 't' }) +
    event({ type: 'text-delta', id: 't', delta: 'High tide at six.' }) +
    event({ type: 'text-end', id: 't' }) +
    event({ type: 'finish', finishReason: 'stop', messageMetadata: meta }) +
    'data: [DONE]\n\n'
  const stored = [
    { id: 'u1', copied_from_id: null, role: 'user', status: 'complete', content: 'tides?', created_at: AT, attachments: [] },
    {
      id: 'a1', copied_from_id: null, role: 'assistant', status: 'complete', content: 'High tide at six.', created_at: AT,
      parts: [{ type: 'text', text: 'High tide at six.' }], usage: null, input_tokens: null, output_tokens: null, cost: null, duration_ms: null, meta: null,
    },
    { id: 'n1', copied_from_id: null, role: 'notice', status: 'complete', content: '3 turns summarised.', created_at: AT, meta: { kind: 'compressed', summary } },
  ] as ReplayMessage[]
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const reads: string[] = []
  vi.stubGlobal('fetch', vi.fn(async (url: string) => {
    if (url === `/api/agents/${SLUG}/chat`) return new Response(streamOf(answered), { headers: { 'Content-Type': 'text/event-stream' } })
    if (url === `/api/agents/${SLUG}`) return Response.json(agent)
    if (url === `/api/agents/${SLUG}/models`) return Response.json({ default: 'demo', models: [] })
    if (url === '/api/agents') return Response.json({ agents: [agent], problems: [], targets: ['demo'], project_root: '/p' })
    if (url === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: null, up_to_date: true })
    if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, page: 1, page_size: 25, pages: 0 })
    if (url === `/api/conversations/${CONVERSATION}`) {
      await released
      reads.push(url)
      return Response.json(detail(stored))
    }
    return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
  }))
  render(
    <MemoryRouter initialEntries={[`/agents/${SLUG}`]}>
      <App />
    </MemoryRouter>,
  )
  await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'tides?{Enter}')
  await userEvent.click(await screen.findByTestId('compression-summary-toggle'))
  expect(screen.getByTestId('compression-summary')).toHaveTextContent(summary)
  release()
  await waitFor(() => expect(reads.length).toBeGreaterThanOrEqual(2))
  await waitFor(() => expect(screen.queryByRole('button', { name: 'Stop (Esc)' })).toBeNull())
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(screen.getAllByTestId('compression-marker')).toHaveLength(1)
  expect(screen.getByTestId('compression-summary')).toHaveTextContent(summary)
}, 20000)
