import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import type { AgentCard, AgentsResponse } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'
import { AgentsPage } from './AgentsPage'

const card = (over: Partial<AgentCard> = {}): AgentCard => ({
  slug: 'app.support', name: 'support_agent', label: null, module: 'app', attribute: 'support_agent', description: 'Helps customers.',
  file: null,
  model: { provider: 'openai', name: 'gpt-5', id: 'openai:gpt-5', is_demo: false, fallbacks: [] },
  tools: ['lookup_order', 'search', 'create_ticket', 'refund', 'escalate'],
  counts: { tools: 5, native_tools: 0, toolsets: 1, mcp_toolsets: 0, capabilities: 0, subagents: 0 },
  stateless: false, structured_output: false, problems: [], configured: false, version: null,
  ...over,
})

function serve(body: AgentsResponse | (() => Response)) {
  vi.stubGlobal('fetch', vi.fn(async () => (typeof body === 'function' ? body() : Response.json(body))))
}

function show() {
  return render(
    <MemoryRouter>
      <AgentsPage />
    </MemoryRouter>,
  )
}

beforeEach(() => resetResources())
afterEach(() => vi.unstubAllGlobals())

describe('AgentsPage', () => {
  it('a card per agent: model, tool chips with a +N overflow, badges, problems', async () => {
    serve({
      agents: [
        card(),
        card({ slug: 'app.demo', name: 'demo_agent', model: { provider: 'synapse', name: 'synapse-demo', id: 'demo', is_demo: true, fallbacks: [] }, tools: [], stateless: true, problems: [{ code: 'missing_api_key', message: 'Set OPENAI_API_KEY', env_var: 'OPENAI_API_KEY' }] }),
      ],
      problems: [],
      targets: ['app'],
      project_root: '/p',
      degraded: [],
    })
    show()
    const [support, demo] = await screen.findAllByTestId('agent-card')
    expect(within(support!).getByRole('link', { name: 'support_agent' })).toHaveAttribute('href', '/agents/app.support')
    expect(within(support!).getByText('openai / gpt-5')).toBeInTheDocument()
    expect(within(support!).getByText('lookup_order')).toBeInTheDocument()
    expect(within(support!).queryByText('refund')).not.toBeInTheDocument()
    await userEvent.click(within(support!).getByRole('button', { name: '3 more tools' }))
    expect(await screen.findByText('All 5 tools')).toBeInTheDocument()
    expect(within(demo!).getByText('demo model')).toBeInTheDocument()
    expect(within(demo!).getByText('Stateless')).toBeInTheDocument()
    expect(within(demo!).getByText('OPENAI_API_KEY missing')).toBeInTheDocument()
    expect(screen.getByText('2 agents discovered in app')).toBeInTheDocument()
  })

  it('a configured agent: its badge and version, and its card opens its playground', async () => {
    serve({
      agents: [card(), card({ slug: 'config:deckhand', name: 'Deckhand', module: 'config', attribute: 'deckhand', tools: [], configured: true, version: 3 })],
      problems: [],
      targets: ['app'],
      project_root: '/p',
      degraded: [],
    })
    show()
    const [code, configured] = await screen.findAllByTestId('agent-card')
    expect(within(code!).queryByTestId('configured-badge')).not.toBeInTheDocument()
    expect(within(configured!).getByTestId('configured-badge')).toHaveTextContent('configured')
    expect(within(configured!).getByText('v3')).toBeInTheDocument()
    expect(within(configured!).getByRole('link', { name: 'Deckhand' })).toHaveAttribute('href', '/agents/config:deckhand')
  })

  it('agents that share a name read by their labels', async () => {
    serve({
      agents: [
        card({ slug: 'weather.agent', name: 'agent', label: 'agent · weather', module: 'weather', attribute: 'agent' }),
        card({ slug: 'bank.agent', name: 'agent', label: 'agent · bank', module: 'bank', attribute: 'agent' }),
      ],
      problems: [],
      targets: ['.'],
      project_root: '/p',
      degraded: [],
    })
    show()
    const cards = await screen.findAllByTestId('agent-card')
    expect(cards.map((c) => within(c).getByRole('link', { name: /^agent · / }).textContent)).toEqual(['agent · weather', 'agent · bank'])
  })

  it('discovery problems are error cards with a folded traceback, beside the agents', async () => {
    serve({
      agents: [card()],
      problems: [{ kind: 'import_error', target: 'app.broken', file: '/p/app/broken.py', module: 'app.broken', exception: 'ModuleNotFoundError', message: "No module named 'nope'", traceback: 'Traceback (most recent call last): ...' }],
      targets: ['app'],
      project_root: '/p',
      degraded: [],
    })
    show()
    const problem = await screen.findByTestId('discovery-problem')
    expect(problem).toHaveTextContent('ModuleNotFoundError')
    expect(problem).toHaveTextContent("No module named 'nope'")
    expect(problem).toHaveTextContent('/p/app/broken.py')
    expect(within(problem).queryByText(/Traceback \(most/)).not.toBeInTheDocument()
    await userEvent.click(within(problem).getByRole('button', { name: 'Traceback' }))
    expect(within(problem).getByText(/Traceback \(most/)).toBeInTheDocument()
    expect(screen.getAllByTestId('agent-card')).toHaveLength(1)
  })

  it('no agent: says where Synapse looked and how to point it elsewhere', async () => {
    serve({ agents: [], problems: [], targets: ['./agents'], project_root: '/home/me/project', degraded: [] })
    show()
    expect(await screen.findByText('No agents found')).toBeInTheDocument()
    expect(screen.getByText('./agents')).toBeInTheDocument()
    expect(screen.getByText('/home/me/project')).toBeInTheDocument()
    expect(screen.getByText(/SYNAPSE_AGENTS=/)).toBeInTheDocument()
    expect(screen.getByText(/\[tool\.synapse\]/)).toBeInTheDocument()
  })

  it('a server that does not answer: an error state with a retry', async () => {
    let calls = 0
    serve(() => (++calls === 1 ? Response.json({ error: { code: 'internal', message: 'Internal error (Boom)' } }, { status: 500 }) : Response.json({ agents: [card()], problems: [], targets: ['app'], project_root: '/p' })))
    show()
    expect(await screen.findByRole('alert')).toHaveTextContent('Internal error (Boom)')
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByTestId('agent-card')).toBeInTheDocument()
  })
})
