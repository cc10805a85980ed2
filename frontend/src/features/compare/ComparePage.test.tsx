// The comparison page against a fake server: a source and its fork, the shared first turn folded,
// the differing turn side by side with its numbers, and each branch's totals.
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, useLocation } from 'react-router'
import { App } from '@/app/App'
import type { ConversationDetail, ReplayMessage } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'

const A = '0193aaaa-0000-7000-8000-00000000000a'
const B = '0193aaaa-0000-7000-8000-00000000000b'
const C = '0193aaaa-0000-7000-8000-00000000000c'
const at = '2026-11-30T06:00:00.000Z'

const user = (id: string, content: string, copied: string | null = null): ReplayMessage => ({ id, copied_from_id: copied, role: 'user', status: 'complete', content, created_at: at, attachments: [] })
const answer = (id: string, text: string, copied: string | null, model: string, cost: number | null, tool = false): ReplayMessage => ({
  id, copied_from_id: copied, role: 'assistant', status: 'complete', content: text, created_at: at,
  parts: [
    ...(tool ? [{ type: 'tool' as const, tool: { id: `${id}-t`, tool_call_id: `${id}-call`, kind: 'function' as const, name: 'lookup_order', arguments: {}, result: {}, status: 'success' as const, duration_ms: 1250 } }] : []),
    { type: 'text', text },
  ],
  usage: null, input_tokens: 120, output_tokens: 30, cost, duration_ms: 2400, meta: { model, provider: null },
})

const detail = (id: string, title: string, messages: ReplayMessage[], cost: number | null): ConversationDetail => ({
  conversation: {
    id, agent_key: 'demo.support-agent', agent_name: 'support_agent', title, status: 'success', origin: 'playground', tenant: null, actor: null, subject: null,
    forked_from_id: id === A ? null : A, input_tokens: 240, output_tokens: 60, total_tokens: 300, cost, message_count: messages.length, tool_count: 1,
    created_at: at, updated_at: at, stateless: false, agent_available: true, forked_from: id === A ? null : { id: A, title: 'Orders', message_id: 'u2' }, forks: [], deps_values: null,
  },
  messages,
  totals: { input_tokens: 240, output_tokens: 60, cost, duration_ms: 4800, tool_calls: 1 },
})

const source = detail(A, 'Orders', [user('u1', 'Hello'), answer('a1', 'Hi there.', null, 'demo', 0.001), user('u2', 'Where is A-1001?'), answer('a2', '**Shipped** yesterday.', null, 'demo', null, true)], null)
const fork = detail(B, 'Orders (re-run)', [user('c1', 'Hello', 'u1'), answer('c2', 'Hi there.', 'a1', 'demo', 0.001), user('n1', 'Where is order A-1001 now?'), answer('n2', 'On its way.', null, 'test', 0.0012)], 0.0012)
// A fork stored with its source's very title, as forks were before they were named `fork of …`.
const oldFork = detail(C, 'Orders', [user('d1', 'Hello', 'u1'), answer('d2', 'Hi there.', 'a1', 'demo', 0.001)], 0.001)

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.pathname + location.search}</output>
}

beforeEach(() => {
  resetResources()
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === `/api/conversations/${A}`) return Response.json(source)
      if (url === `/api/conversations/${B}`) return Response.json(fork)
      if (url === `/api/conversations/${C}`) return Response.json(oldFork)
      if (url === '/api/agents') return Response.json({ agents: [], problems: [], targets: [], project_root: '/p' })
      if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, total_exact: true, page: 1, page_size: 25, pages: 0 })
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
})
afterEach(() => vi.unstubAllGlobals())

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <App />
      <Where />
    </MemoryRouter>,
  )

describe('the comparison', () => {
  it('folds the shared turn and puts the differing one side by side', async () => {
    renderAt(`/compare?a=${A}&b=${B}`)
    const shared = await screen.findByTestId('shared-turns')
    expect(shared).toHaveTextContent('1 shared turn')
    expect(within(shared).queryByText('Hi there.')).not.toBeInTheDocument()
    await userEvent.click(within(shared).getByRole('button', { name: /1 shared turn/ }))
    expect(within(shared).getByText('Hi there.')).toBeInTheDocument()

    const turn = screen.getByTestId('compare-turn')
    expect(turn).toHaveTextContent('Turn 2')
    const [left, right] = within(turn).getAllByTestId('compare-side')
    expect(left).toHaveAttribute('data-branch', 'A')
    expect(within(left!).getByTestId('compare-user')).toHaveTextContent('Where is A-1001?')
    expect(within(left!).getByTestId('compare-answer').querySelector('strong')).toHaveTextContent('Shipped')
    expect(within(left!).getByTestId('compare-tool')).toHaveTextContent('lookup_order')
    expect(within(left!).getByTestId('compare-tool')).toHaveTextContent('1.25 s')
    // An unknown price is "unpriced", never $0.
    expect(within(left!).getByTestId('turn-numbers')).toHaveTextContent('unpriced')
    expect(within(left!).getByTestId('turn-numbers')).toHaveTextContent('demo')
    expect(within(right!).getByTestId('compare-user')).toHaveTextContent('Where is order A-1001 now?')
    expect(within(right!).getByTestId('compare-answer')).toHaveTextContent('On its way.')
    expect(within(right!).getByTestId('turn-numbers')).toHaveTextContent('$0.0012')
    expect(within(right!).getByTestId('turn-numbers')).toHaveTextContent('2.40 s')
    expect(within(right!).getByTestId('turn-numbers')).toHaveTextContent('test')
    expect(within(right!).getByTestId('turn-numbers')).toHaveTextContent('120')

    const [totalsA, totalsB] = within(screen.getByTestId('compare-summary')).getAllByTestId('compare-totals')
    // Over every row shown, the shared turn included: A has an unpriced answer, B's add up.
    expect(totalsA).toHaveTextContent('unpriced')
    expect(totalsA).toHaveTextContent(/Input\s*240/)
    expect(totalsA).toHaveTextContent(/Tools\s*1/)
    expect(totalsB).toHaveTextContent('$0.0022')
    expect(totalsB).toHaveTextContent(/Turns\s*2/)
    expect(totalsB).toHaveTextContent(/Duration\s*4.80 s/)
  })

  it('swaps the sides in the URL', async () => {
    renderAt(`/compare?a=${A}&b=${B}`)
    await userEvent.click(await screen.findByRole('button', { name: 'Swap A and B' }))
    expect(screen.getByTestId('where')).toHaveTextContent(`/compare?a=${B}&b=${A}`)
    const branches = await screen.findAllByTestId('compare-branch')
    expect(branches[0]).toHaveTextContent('Orders (re-run)')
  })

  it('never shows two conversations under one title', async () => {
    renderAt(`/compare?a=${A}&b=${C}`)
    const titles = await screen.findAllByTestId('compare-title')
    expect(titles.map((title) => title.textContent)).toEqual(['Orders', 'fork of Orders'])
    expect(titles[1]).toHaveAttribute('title', 'fork of Orders')
  })

  it('without two ids, asks for them', async () => {
    renderAt(`/compare?a=${A}`)
    await userEvent.type(screen.getByRole('textbox', { name: 'Conversation B' }), B)
    await userEvent.click(screen.getByRole('button', { name: 'Compare' }))
    expect(screen.getByTestId('where')).toHaveTextContent(`/compare?a=${A}&b=${B}`)
    expect(await screen.findByTestId('shared-turns')).toBeInTheDocument()
  })

  it('a conversation that does not exist says so', async () => {
    renderAt(`/compare?a=${A}&b=0193aaaa-0000-7000-8000-00000000dead`)
    expect(await screen.findByRole('alert')).toHaveTextContent('Not found')
  })
})
