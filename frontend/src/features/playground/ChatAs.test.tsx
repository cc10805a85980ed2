// Chatting as a tenant, a person and a subject: the first message of a new conversation carries
// them (remembered per agent for the next new one), a conversation that exists shows the scope it
// keeps and sends none, and a label the server refuses shows as the request's error.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import { App } from '@/app/App'
import type { AgentInfo, ConversationDetail, ScopeRef } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'
import { demoAgent } from '@/test/agents'
import { streamOf } from '@/test/sse'
import { chatAsKey } from './chatAsLabels'

const SLUG = 'demo.support-agent'
const OTHER = 'demo.billing-agent'
const CONVERSATION = '0193aaaa-0000-7000-8000-0000000000c5'
const AT = '2026-11-30T06:00:00.000Z'

const agentOf = (slug: string): AgentInfo => demoAgent(slug, { name: slug.split('.')[1]!, attribute: 'agent' })

const event = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`
const meta = (turn: number) => ({ conversation_id: CONVERSATION, message_id: `a${turn}`, user_message_id: `u${turn}`, model: 'synapse-demo', provider: 'synapse' })
const answer = (turn: number) =>
  event({ type: 'start', messageId: `a${turn}`, messageMetadata: meta(turn) }) +
  event({ type: 'text-start', id: 't' }) +
  event({ type: 'text-delta', id: 't', delta: `Answer ${turn}.` }) +
  event({ type: 'text-end', id: 't' }) +
  event({ type: 'finish', finishReason: 'stop', messageMetadata: { ...meta(turn), usage: { input_tokens: 3, output_tokens: 2 }, duration_ms: 10 } }) +
  'data: [DONE]\n\n'

const FIRM: Record<'tenant' | 'actor' | 'subject', ScopeRef> = { tenant: { type: 'firm', id: '7' }, actor: { type: 'user', id: 'maria' }, subject: { type: 'case', id: '1' } }

function detailOf(turns: number, scope: Partial<typeof FIRM> = FIRM): ConversationDetail {
  const messages = Array.from({ length: turns }, (_, index) => [
    { id: `u${index + 1}`, copied_from_id: null, role: 'user', status: 'complete', content: `Question ${index + 1}`, created_at: AT, attachments: [] },
    { id: `a${index + 1}`, copied_from_id: null, role: 'assistant', status: 'complete', content: `Answer ${index + 1}.`, created_at: AT, parts: [{ type: 'text', text: `Answer ${index + 1}.` }], usage: { input_tokens: 3, output_tokens: 2 }, input_tokens: 3, output_tokens: 2, cost: null, duration_ms: 10, meta: { model: 'synapse-demo', provider: 'synapse' } },
  ]).flat() as ConversationDetail['messages']
  return {
    conversation: { id: CONVERSATION, agent_key: SLUG, agent_name: 'support-agent', title: 'Question 1', status: 'success', origin: 'playground', tenant: scope.tenant ?? null, actor: scope.actor ?? null, subject: scope.subject ?? null, forked_from_id: null, forked_from: null, forks: [], input_tokens: 3 * turns, output_tokens: 2 * turns, total_tokens: 5 * turns, cost: null, message_count: 2 * turns, tool_count: 0, created_at: AT, updated_at: AT, stateless: false, agent_available: true, deps_values: null },
    messages,
    totals: { input_tokens: 3 * turns, output_tokens: 2 * turns, cost: null, duration_ms: 10 * turns, tool_calls: 0 },
  }
}

/** A server whose chat answers `reply(n)` to the n-th message; the stored thread holds the turns answered so far. */
function fakeServer({ reply = (n: number) => new Response(streamOf(answer(n)), { headers: { 'Content-Type': 'text/event-stream' } }), stored = 0 } = {}) {
  const chats: FormData[] = []
  let answered = stored
  vi.stubGlobal('fetch', vi.fn(async (url: string, init?: RequestInit) => {
    const agent = /^\/api\/agents\/([^/]+)$/.exec(url)
    if (url.endsWith('/chat')) {
      chats.push(init!.body as FormData)
      const response = reply(chats.length)
      if (response.ok) answered += 1
      return response
    }
    if (agent) return Response.json(agentOf(decodeURIComponent(agent[1]!)))
    if (url.endsWith('/models')) return Response.json({ default: 'demo', models: [{ id: 'demo', label: 'Synapse demo model', provider: 'synapse', source: 'agent', available: true, missing_env: null }] })
    if (url === '/api/agents') return Response.json({ agents: [agentOf(SLUG), agentOf(OTHER)], problems: [], targets: ['demo'], project_root: '/p' })
    if (url === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: null, up_to_date: true })
    if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, page: 1, page_size: 25, pages: 0 })
    if (url === `/api/conversations/${CONVERSATION}`) return Response.json(detailOf(answered))
    return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
  }))
  return chats
}

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <App />
    </MemoryRouter>,
  )

const scopeOf = (form: FormData) => ({ tenant: form.get('tenant'), actor: form.get('actor'), subject: form.get('subject') })
const NONE = { tenant: null, actor: null, subject: null }

// Under jsdom a popover's content counts as hidden (no Popover API): queries into it say `hidden`.
async function openChatAs() {
  const trigger = await screen.findByRole('button', { name: 'Chat as' })
  if (trigger.getAttribute('aria-expanded') !== 'true') await userEvent.click(trigger)
}

const field = (name: string) => screen.getByRole('textbox', { name, hidden: true })

async function chatAs(labels: { tenant?: string; actor?: string; subject?: string }) {
  await openChatAs()
  const fields = { tenant: 'Tenant', actor: 'Person (actor)', subject: 'Subject' } as const
  for (const [axis, label] of Object.entries(fields) as [keyof typeof fields, string][]) {
    const input = field(label)
    await userEvent.clear(input)
    if (labels[axis]) await userEvent.type(input, labels[axis]!)
  }
}

async function sendMessage(text: string) {
  await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), `${text}{Enter}`)
}

const idle = () => waitFor(() => expect(screen.queryByRole('button', { name: 'Stop (Esc)' })).toBeNull())

beforeEach(() => {
  resetResources()
  localStorage.clear()
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => setTimeout(() => callback(0), 0))
})
afterEach(() => vi.unstubAllGlobals())

beforeAll(async () => {
  await import('./PlaygroundPage')
})

describe('chat as', () => {
  it('sends the scope with the first message of a new conversation only, and keeps it for the next new one', async () => {
    const chats = fakeServer()
    renderAt(`/agents/${SLUG}`)
    await screen.findByRole('textbox', { name: 'Message' })
    await chatAs({ tenant: 'firm:7', actor: 'user:maria', subject: ' case:1 ' })
    expect(screen.getByText('Rules, memories and spending limits of this tenant and person apply. Empty: none.')).toBeInTheDocument()

    await sendMessage('Question 1')
    expect(scopeOf(chats[0]!)).toEqual({ tenant: 'firm:7', actor: 'user:maria', subject: 'case:1' })
    expect(chats[0]!.has('conversation_id')).toBe(false)
    await idle()
    const chips = await screen.findByTestId('conversation-scope')
    expect(chips).toHaveTextContent('firm:7')
    expect(within(chips).getByLabelText('Actor user:maria')).toBeInTheDocument()
    expect(chips).toHaveTextContent('case:1')

    await sendMessage('Question 2')
    await waitFor(() => expect(chats).toHaveLength(2))
    expect(chats[1]!.get('conversation_id')).toBe(CONVERSATION)
    expect(scopeOf(chats[1]!)).toEqual(NONE)
    await idle()

    await userEvent.click(screen.getByRole('button', { name: 'New conversation' }))
    await sendMessage('Question 3')
    await waitFor(() => expect(chats).toHaveLength(3))
    expect(chats[2]!.has('conversation_id')).toBe(false)
    expect(scopeOf(chats[2]!)).toEqual({ tenant: 'firm:7', actor: 'user:maria', subject: 'case:1' })
  }, 20000)

  it('shows the scope an existing conversation keeps and sends none with its messages', async () => {
    localStorage.setItem(chatAsKey(SLUG), JSON.stringify({ tenant: 'org:other', actor: 'user:1', subject: '' }))
    const chats = fakeServer({ stored: 1 })
    renderAt(`/agents/${SLUG}/c/${CONVERSATION}`)
    const chips = await screen.findByTestId('conversation-scope')
    expect(chips).toHaveTextContent('firm:7')
    expect(chips).toHaveTextContent('user:maria')
    expect(chips).toHaveTextContent('case:1')

    await openChatAs()
    const kept = screen.getByTestId('kept-scope')
    expect(kept).toHaveTextContent('firm:7')
    expect(kept).toHaveTextContent('A conversation keeps the scope it was created with')
    expect(screen.queryByRole('textbox', { name: 'Tenant', hidden: true })).toBeNull()

    await sendMessage('Question 2')
    await waitFor(() => expect(chats).toHaveLength(1))
    expect(chats[0]!.get('conversation_id')).toBe(CONVERSATION)
    expect(scopeOf(chats[0]!)).toEqual(NONE)
  })

  it('remembers the last values per agent', async () => {
    fakeServer()
    const first = renderAt(`/agents/${SLUG}`)
    await screen.findByRole('textbox', { name: 'Message' })
    await chatAs({ tenant: 'org:acme', actor: 'user:42' })
    first.unmount()

    resetResources()
    const again = renderAt(`/agents/${SLUG}`)
    await openChatAs()
    expect(field('Tenant')).toHaveValue('org:acme')
    expect(field('Person (actor)')).toHaveValue('user:42')
    expect(field('Subject')).toHaveValue('')
    again.unmount()

    resetResources()
    renderAt(`/agents/${OTHER}`)
    await openChatAs()
    expect(field('Tenant')).toHaveValue('')
    expect(field('Person (actor)')).toHaveValue('')
  })

  it('shows a refused label as the request error, naming the field, and lets it be corrected', async () => {
    const refused = () => Response.json({ error: { code: 'invalid_request', message: "tenant: expected 'type:id', got 'acme'." } }, { status: 422 })
    const chats = fakeServer({ reply: (n) => (n === 1 ? refused() : new Response(streamOf(answer(1)), { headers: { 'Content-Type': 'text/event-stream' } })) })
    renderAt(`/agents/${SLUG}`)
    await screen.findByRole('textbox', { name: 'Message' })
    await chatAs({ tenant: 'acme' })
    await sendMessage('Question 1')

    const card = await screen.findByTestId('error-card')
    expect(card).toHaveTextContent('422')
    expect(card).toHaveTextContent("tenant: expected 'type:id', got 'acme'.")
    expect(scopeOf(chats[0]!)).toEqual({ tenant: 'acme', actor: null, subject: null })

    await chatAs({ tenant: 'org:acme' })
    await sendMessage('Question 1')
    await waitFor(() => expect(chats).toHaveLength(2))
    expect(scopeOf(chats[1]!).tenant).toBe('org:acme')
  })
})
