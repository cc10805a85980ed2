// Edit and re-run against a fake server: the edited message goes to a fork made just before the
// original (with the original's files and the chosen model), the playground moves to the fork,
// and the original conversation is never written to.
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, useLocation } from 'react-router'
import { App } from '@/app/App'
import type { AgentInfo, ConversationDetail, ConversationRow, ReplayMessage } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'
import { demoAgent } from '@/test/agents'
import { controlledStream } from '@/test/sse'

const SLUG = 'demo.support-agent'
const ORIGINAL = '0193aaaa-0000-7000-8000-000000000001'
const FORK = '0193aaaa-0000-7000-8000-0000000000f1'
const at = '2026-11-30T06:00:00.000Z'

const agent: AgentInfo = demoAgent(SLUG)

const models = {
  default: 'demo',
  models: [
    { id: 'demo', label: 'Synapse demo model', provider: 'synapse', source: 'agent', available: true, missing_env: null },
    { id: 'test', label: 'test', provider: '', source: 'setting', available: true, missing_env: null },
  ],
}

const row = (id: string, extra: Partial<ConversationRow> = {}): ConversationRow => ({
  id, agent_key: SLUG, agent_name: 'support_agent', title: 'Hello', status: 'success', origin: 'playground', tenant: null, actor: null,
  subject: null, forked_from_id: null, input_tokens: 24, output_tokens: 10, total_tokens: 34, cost: null, message_count: 4, tool_count: 0,
  created_at: at, updated_at: at, ...extra,
})

const user = (id: string, content: string, copied: string | null = null, attachments: Extract<ReplayMessage, { role: 'user' }>['attachments'] = []): ReplayMessage => ({
  id, copied_from_id: copied, role: 'user', status: 'complete', content, created_at: at, attachments,
})
const answer = (id: string, text: string, copied: string | null = null): ReplayMessage => ({
  id, copied_from_id: copied, role: 'assistant', status: 'complete', content: text, created_at: at, parts: [{ type: 'text', text }],
  usage: null, input_tokens: 12, output_tokens: 5, cost: null, duration_ms: 800, meta: { model: 'synapse-demo', provider: 'synapse' },
})
const totals = { input_tokens: 24, output_tokens: 10, cost: null, duration_ms: 1600, tool_calls: 0 }

const note = { index: 0, name: 'note.txt', media_type: 'text/plain', size: 5, url: '/api/attachments/m3/0' }
const original: ConversationDetail = {
  conversation: { ...row(ORIGINAL), stateless: false, agent_available: true, forked_from: null, forks: [], deps_values: null },
  messages: [user('m1', 'Hello'), answer('m2', 'Demo reply: hello.'), user('m3', 'Where is A-1001?', null, [note]), answer('m4', 'It shipped yesterday.')],
  totals,
}
const forked: ConversationDetail = {
  conversation: { ...row(FORK, { forked_from_id: ORIGINAL, message_count: 2 }), stateless: false, agent_available: true, forked_from: { id: ORIGINAL, title: 'Hello', message_id: 'm3' }, forks: [], deps_values: null },
  messages: [user('c1', 'Hello', 'm1'), answer('c2', 'Demo reply: hello.', 'm2')],
  totals: { ...totals, input_tokens: 12, output_tokens: 5 },
}

interface Seen {
  url: string
  init?: RequestInit
}

function fakeServer(server: ReturnType<typeof controlledStream>, fork: () => Response = () => Response.json(row(FORK, { forked_from_id: ORIGINAL }), { status: 201 })) {
  const requests: Seen[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      requests.push({ url, init })
      if (url === `/api/agents/${SLUG}/chat`) {
        server.abortWith(init?.signal)
        return new Response(server.stream, { headers: { 'Content-Type': 'text/event-stream' } })
      }
      if (url === `/api/agents/${SLUG}`) return Response.json(agent)
      if (url === `/api/agents/${SLUG}/models`) return Response.json(models)
      if (url === '/api/agents') return Response.json({ agents: [agent], problems: [], targets: ['demo'], project_root: '/p' })
      if (url === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: null, up_to_date: true })
      if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, total_exact: true, page: 1, page_size: 25, pages: 0 })
      if (url === `/api/conversations/${ORIGINAL}/fork`) return fork()
      if (url === `/api/conversations/${ORIGINAL}`) return Response.json(original)
      if (url === `/api/conversations/${FORK}`) return Response.json(forked)
      if (url === note.url) return new Response('hello', { headers: { 'Content-Type': 'text/plain' } })
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
  return requests
}

function Where() {
  return <output data-testid="where">{useLocation().pathname}</output>
}

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <App />
      <Where />
    </MemoryRouter>,
  )

/** A File's text (jsdom's File has no `.text()`). */
const textOf = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsText(file)
  })

const event = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`
const meta = { conversation_id: FORK, message_id: 'n2', user_message_id: 'n1', model: 'test', provider: null }

beforeEach(() => {
  resetResources()
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => setTimeout(() => callback(0), 0))
})
afterEach(() => vi.unstubAllGlobals())

async function openEditor(index: number) {
  await waitFor(() => expect(screen.getAllByTestId('user-message')).toHaveLength(2))
  const button = within(screen.getAllByTestId('user-message')[index]!).getByRole('button', { name: 'Edit and re-run' })
  // From the keyboard: the action is a real button, reachable by focus.
  button.focus()
  await userEvent.keyboard('{Enter}')
  return screen.findByRole('form', { name: 'Edit and re-run' })
}

// The app loads the playground on demand: have its module ready, so the first test does not spend
// its waiting time on a cold import.
beforeAll(async () => {
  await import('./PlaygroundPage')
})

describe('edit and re-run', () => {
  it('forks before the message, opens the fork and sends the edited text there with its files and model', async () => {
    const server = controlledStream()
    const requests = fakeServer(server)
    renderAt(`/agents/${SLUG}/c/${ORIGINAL}`)
    const editor = await openEditor(1)
    const box = within(editor).getByRole('textbox', { name: 'Edited message' })
    expect(box).toHaveValue('Where is A-1001?')
    expect(box).toHaveFocus()
    expect(within(editor).getByTestId('attachment')).toHaveTextContent('note.txt')
    // The model defaults to the one selected in the composer; pick the other one.
    expect(within(editor).getByTestId('model-select')).toHaveTextContent('Synapse demo model')
    await userEvent.click(within(editor).getByTestId('model-select'))
    // jsdom has no Popover API: an open menu still counts as display:none to the role queries.
    await userEvent.click(screen.getByRole('menuitemradio', { name: /^test/, hidden: true }))
    await userEvent.clear(box)
    await userEvent.type(box, 'Where is order A-1001 now?')
    await userEvent.click(within(editor).getByRole('button', { name: 'Re-run' }))

    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(`/agents/${SLUG}/c/${FORK}`))
    const fork = requests.find((r) => r.url.endsWith('/fork'))!
    expect(fork.init?.method).toBe('POST')
    expect(JSON.parse(fork.init?.body as string)).toEqual({ message_id: 'm3' })
    await waitFor(() => expect(requests.some((r) => r.url.endsWith('/chat'))).toBe(true))
    const body = requests.find((r) => r.url.endsWith('/chat'))!.init!.body as FormData
    expect(body.get('message')).toBe('Where is order A-1001 now?')
    expect(body.get('conversation_id')).toBe(FORK)
    expect(body.get('model')).toBe('test')
    const files = body.getAll('attachments') as File[]
    expect(files.map((file) => [file.name, file.type, file.size])).toEqual([['note.txt', 'text/plain', 5]])
    expect(await textOf(files[0]!)).toBe('hello')
    // The attachment was read back before the fork was made (a failed read leaves no fork behind).
    expect(requests.findIndex((r) => r.url === note.url)).toBeLessThan(requests.findIndex((r) => r.url.endsWith('/fork')))

    // The new answer streams into the fork, under the copied first turn.
    await act(async () => {
      server.push(event({ type: 'start', messageId: 'n2', messageMetadata: meta }))
      server.push(event({ type: 'text-start', id: 't' }) + event({ type: 'text-delta', id: 't', delta: 'On its way.' }) + event({ type: 'text-end', id: 't' }))
    })
    await waitFor(() => expect(screen.getAllByTestId('assistant-message').at(-1)).toHaveTextContent('On its way.'))
    const bubbles = screen.getAllByTestId('user-message')
    expect(bubbles).toHaveLength(2)
    expect(bubbles[0]).toHaveTextContent(/^Hello$/)
    expect(bubbles[1]).toHaveTextContent('Where is order A-1001 now?')
    expect(within(bubbles[1]!).getByTestId('attachment')).toHaveTextContent('note.txt')
    expect(screen.getByTestId('forked-from')).toHaveTextContent('Forked from Hello')
    expect(within(screen.getByTestId('forked-from')).getByRole('link', { name: /Compare/ })).toHaveAttribute('href', `/compare?a=${ORIGINAL}&b=${FORK}`)
    // The composer keeps the model the re-run chose.
    expect(screen.getByRole('form', { name: 'Message composer' })).toHaveTextContent('test')
    await act(async () => {
      server.push(event({ type: 'finish', messageMetadata: { ...meta, usage: { input_tokens: 3, output_tokens: 2 } } }))
      server.close()
    })

    // Nothing was ever written to the original: only reads (and the fork) touched it.
    const writes = requests.filter((r) => r.url.includes(ORIGINAL) && (r.init?.method ?? 'GET') !== 'GET')
    expect(writes.map((r) => r.url)).toEqual([`/api/conversations/${ORIGINAL}/fork`])
    const chats = requests.filter((r) => r.url.endsWith('/chat'))
    expect(chats.map((r) => (r.init!.body as FormData).get('conversation_id'))).toEqual([FORK])
  })

  it('Cancel and Esc close the editor without a request', async () => {
    const requests = fakeServer(controlledStream())
    renderAt(`/agents/${SLUG}/c/${ORIGINAL}`)
    const editor = await openEditor(0)
    expect(within(editor).getByRole('textbox', { name: 'Edited message' })).toHaveValue('Hello')
    await userEvent.click(within(editor).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('form', { name: 'Edit and re-run' })).not.toBeInTheDocument()
    await openEditor(1)
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('form', { name: 'Edit and re-run' })).not.toBeInTheDocument()
    expect(requests.some((r) => r.url.endsWith('/fork') || r.url.endsWith('/chat'))).toBe(false)
    expect(screen.getAllByTestId('user-message')).toHaveLength(2)
  })

  it('a refused fork says why and keeps the editor open on the original', async () => {
    const requests = fakeServer(controlledStream(), () =>
      Response.json({ error: { code: 'conflict', message: 'A turn of this conversation is still running.' } }, { status: 409 }),
    )
    renderAt(`/agents/${SLUG}/c/${ORIGINAL}`)
    const editor = await openEditor(0)
    await userEvent.click(within(editor).getByRole('button', { name: 'Re-run' }))
    expect(await within(editor).findByRole('alert')).toHaveTextContent('A turn of this conversation is still running.')
    expect(screen.getByTestId('where')).toHaveTextContent(`/agents/${SLUG}/c/${ORIGINAL}`)
    expect(requests.some((r) => r.url.endsWith('/chat'))).toBe(false)
  })

  it('a conversation with forks lists them with a comparison each; one from an app shows its origin and scope', async () => {
    fakeServer(controlledStream())
    original.conversation = {
      ...original.conversation,
      origin: 'app',
      tenant: { type: 'firm', id: '7' },
      actor: { type: 'user', id: '42' },
      forks: [{ id: FORK, title: 'Hello', created_at: at, forked_at_message_id: 'm3' }],
    }
    try {
      renderAt(`/agents/${SLUG}/c/${ORIGINAL}`)
      const forks = await screen.findByTestId('forks')
      expect(forks).toHaveTextContent('1 fork')
      expect(within(forks).getByRole('link', { name: 'Compare with Hello' })).toHaveAttribute('href', `/compare?a=${ORIGINAL}&b=${FORK}`)
      expect(screen.getByTestId('origin-badge')).toHaveTextContent('app')
      expect(within(screen.getByTestId('scope-chips')).getAllByText(/:/).map((chip) => chip.textContent)).toEqual(['firm:7', 'user:42'])
      // And it can be continued as usual.
      expect(screen.getByRole('textbox', { name: 'Message' })).toBeEnabled()
    } finally {
      original.conversation = { ...row(ORIGINAL), stateless: false, agent_available: true, forked_from: null, forks: [], deps_values: null }
    }
  })
})
