// The Traces page against a fake server that pages and filters roots like the real one
// (newest first, `next_before` when the page is full, `agent`, `origin`, `errors=true`).
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { Link, MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { TraceRoot } from './api'
import { PAGE_SIZE } from './RootList'
import { rootOf } from './sample'
import TracesPage from './TracesPage'

let roots: TraceRoot[]
let reads: URLSearchParams[]
let degraded: Record<string, string>[]

function fakeServer() {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const [path = '', qs = ''] = url.split('?')
      const query = new URLSearchParams(qs)
      if (path === '/api/agents') return Response.json({ agents: [{ slug: 'digest', name: 'digest' }, { slug: 'billing', name: 'billing' }], problems: [], targets: [], project_root: '/' })
      if (path === '/api/health') return Response.json({ status: 'ok', version: '9.9.9', database: 'sqlite', revision: null, head: 'x', up_to_date: true, degraded })
      if (path !== '/api/traces') return Response.json({ error: { code: 'not_found', message: 'No such route.' } }, { status: 404 })
      reads.push(query)
      let list = roots
      const agent = query.get('agent')
      if (agent) list = list.filter((root) => root.agent_key === agent)
      if (query.get('origin')) list = list.filter((root) => root.origin === query.get('origin'))
      if (query.get('errors') === 'true') list = list.filter((root) => root.status === 'error')
      const before = query.get('before')
      if (before) list = list.slice(list.findIndex((root) => root.agent_run_id === before) + 1)
      const limit = Number(query.get('limit') ?? 50)
      const page = list.slice(0, limit)
      return Response.json({ roots: page, next_before: page.length === limit ? page.at(-1)!.agent_run_id : null })
    }),
  )
}

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.pathname + location.search}</output>
}

function renderPage(path = '/traces') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/traces" element={<TracesPage />} />
        <Route path="/traces/:runId" element={<p>trace page</p>} />
      </Routes>
      <Where />
      <Link to="/traces?agent=billing">billing link</Link>
    </MemoryRouter>,
  )
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()

beforeEach(() => {
  resetResources()
  reads = []
  degraded = []
  roots = [
    rootOf({ agent_run_id: 'r3', agent_name: 'planner', started_at: minutesAgo(1), cost: '0.0031', model: 'openai:gpt-5-mini' }),
    rootOf({ agent_run_id: 'r2', agent_name: 'billing', agent_key: 'billing', origin: 'config', status: 'error', error: 'UsageLimitExceeded: request_limit of 3', started_at: minutesAgo(5) }),
    rootOf({ agent_run_id: 'r1', agent_name: 'digest', agent_key: 'digest', origin: 'workflow', depth: 1, started_at: minutesAgo(90), model_calls: 1, tool_calls: 0 }),
  ]
  fakeServer()
})

afterEach(() => vi.unstubAllGlobals())

describe('TracesPage', () => {
  it('lists the roots newest first with their status, origin, tokens, cost, duration and counts', async () => {
    renderPage()
    const rows = await screen.findAllByTestId('trace-root')
    expect(rows.map((row) => row.getAttribute('data-run'))).toEqual(['r3', 'r2', 'r1'])
    const [planner, billing, digest] = rows as [HTMLElement, HTMLElement, HTMLElement]
    expect(within(planner).getByTestId('trace-root-agent')).toHaveTextContent('planner')
    expect(within(planner).getByTestId('trace-origin')).toHaveTextContent('Code')
    expect(within(planner).getByTestId('trace-root-tokens')).toHaveTextContent('100 in · 16 out')
    expect(within(planner).getByTestId('trace-root-cost')).toHaveTextContent('$0.0031')
    expect(within(planner).getByTestId('trace-root-duration')).toHaveTextContent('200 ms')
    expect(within(planner).getByTestId('trace-root-calls')).toHaveTextContent('2 model calls · 1 tool call')
    expect(planner).toHaveTextContent('openai:gpt-5-mini')
    expect(planner).toHaveTextContent('1 min ago')
    // A failed root: the badge, the agent in red, the error; an unknown price reads unpriced.
    expect(billing).toHaveAttribute('data-status', 'error')
    expect(within(billing).getByTestId('trace-root-status')).toHaveTextContent('Error')
    expect(within(billing).getByTestId('trace-root-agent')).toHaveClass('text-destructive')
    expect(billing).toHaveTextContent('UsageLimitExceeded: request_limit of 3')
    expect(within(billing).getByTestId('trace-root-cost')).toHaveTextContent('unpriced')
    expect(within(digest).getByTestId('trace-origin')).toHaveTextContent('Workflow')
    expect(digest).toHaveTextContent('step, depth 1')
    expect(reads[0]!.toString()).toBe(`limit=${PAGE_SIZE}`)
    // The agent box offers the known slugs.
    await waitFor(() => expect([...document.querySelectorAll('#trace-agents option')].map((option) => option.getAttribute('value'))).toEqual(['digest', 'billing']))
  })

  it('opens a root’s trace', async () => {
    renderPage()
    await userEvent.click((await screen.findAllByTestId('trace-root'))[1]!)
    expect(screen.getByTestId('where')).toHaveTextContent('/traces/r2')
    expect(screen.getByText('trace page')).toBeInTheDocument()
  })

  it('filters by origin, errors only and agent, kept in the URL', async () => {
    renderPage()
    await screen.findAllByTestId('trace-root')
    await userEvent.selectOptions(screen.getByLabelText('Origin'), 'config')
    await waitFor(() => expect(screen.getAllByTestId('trace-root').map((row) => row.getAttribute('data-run'))).toEqual(['r2']))
    expect(reads.at(-1)!.get('origin')).toBe('config')
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('origin=config'))

    await userEvent.selectOptions(screen.getByLabelText('Origin'), '')
    await userEvent.click(screen.getByLabelText('Errors only'))
    await waitFor(() => expect(reads.at(-1)!.get('errors')).toBe('true'))
    expect(reads.at(-1)!.has('origin')).toBe(false)
    expect(screen.getAllByTestId('trace-root')).toHaveLength(1)
    await userEvent.click(screen.getByLabelText('Errors only'))

    await userEvent.type(screen.getByLabelText('Agent'), 'digest')
    await waitFor(() => expect(reads.at(-1)!.get('agent')).toBe('digest'))
    // One read for the whole word, not one per key.
    expect(reads.filter((query) => query.has('agent'))).toHaveLength(1)
    await waitFor(() => expect(screen.getAllByTestId('trace-root').map((row) => row.getAttribute('data-run'))).toEqual(['r1']))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('agent=digest'))
  })

  it('takes an agent from a link into the box', async () => {
    renderPage('/traces?agent=digest')
    await waitFor(() => expect(screen.getAllByTestId('trace-root').map((row) => row.getAttribute('data-run'))).toEqual(['r1']))
    await userEvent.click(screen.getByRole('link', { name: 'billing link' }))
    expect(screen.getByLabelText('Agent')).toHaveValue('billing')
    await waitFor(() => expect(screen.getAllByTestId('trace-root').map((row) => row.getAttribute('data-run'))).toEqual(['r2']))
  })

  it('says when nothing matches, and when nothing was traced yet', async () => {
    renderPage('/traces?agent=nobody')
    expect(await screen.findByText('No trace matches')).toBeInTheDocument()
    expect(screen.getByLabelText('Agent')).toHaveValue('nobody')
  })

  it('explains how to trace runs when there are none', async () => {
    roots = []
    renderPage()
    expect(await screen.findByText('No traces yet')).toBeInTheDocument()
    expect(screen.getByText('debug_playground')).toBeInTheDocument()
  })

  it('says why nothing is traced when health reports tracing unavailable, and says nothing otherwise', async () => {
    roots = []
    renderPage()
    expect(await screen.findByText('No traces yet')).toBeInTheDocument()
    expect(screen.queryByTestId('traces-unavailable')).not.toBeInTheDocument()

    resetResources()
    degraded = [{ feature: 'traces', lost: 'this pydantic-ai has no Agent._resolve_instrumentation_settings', missing: 'pydantic_ai.Agent._resolve_instrumentation_settings', pydantic_ai_version: '2.0.0' }]
    renderPage()
    const banner = await screen.findByTestId('traces-unavailable')
    expect(banner).toHaveTextContent('Synapse cannot record traces here')
    expect(banner).toHaveTextContent('pydantic_ai.Agent._resolve_instrumentation_settings')
    expect(banner).toHaveTextContent('pydantic-ai 2.0.0')
  })

  it('loads the next page after the last root of the one before, until there is none', async () => {
    roots = Array.from({ length: PAGE_SIZE + 3 }, (_, index) => rootOf({ agent_run_id: `r${String(1000 - index)}`, started_at: minutesAgo(index) }))
    renderPage()
    expect(await screen.findAllByTestId('trace-root')).toHaveLength(PAGE_SIZE)
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }))
    await waitFor(() => expect(screen.getAllByTestId('trace-root')).toHaveLength(PAGE_SIZE + 3))
    expect(reads.at(-1)!.get('before')).toBe(roots[PAGE_SIZE - 1]!.agent_run_id)
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument()
    const ids = screen.getAllByTestId('trace-root').map((row) => row.getAttribute('data-run'))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('shows the server’s error with a retry', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Response.json({ error: { code: 'invalid_request', message: 'origin: unknown origin' } }, { status: 422 })))
    renderPage()
    expect(await screen.findByRole('alert')).toHaveTextContent('origin: unknown origin')
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument()
  })
})
