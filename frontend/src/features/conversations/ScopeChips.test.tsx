// Scope chips and the scope line: a task's actor (`standing_agent:<id>`) by the standing agent's
// name, its raw ref kept in the tooltip; other refs as written, with no read of standing agents.
import { render, screen, waitFor } from '@testing-library/react'
import { resetResources } from '@/lib/resource'
import { ScopeChips, ScopeLine } from './ScopeChips'

let reads: string[]

beforeEach(() => {
  resetResources()
  reads = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      reads.push(url)
      if (url === '/api/standing-agents') return Response.json({ standing_agents: [{ id: 's-1', name: 'Nightly digest' }] })
      return Response.json({ error: { code: 'not_found', message: 'No such route.' } }, { status: 404 })
    }),
  )
})

afterEach(() => vi.unstubAllGlobals())

const taskScope = { tenant: { type: 'org', id: 'acme' }, actor: { type: 'standing_agent', id: 's-1' }, subject: null }

describe('ScopeChips', () => {
  it('names a standing agent actor and keeps its raw ref', async () => {
    render(<ScopeChips scoped={taskScope} />)
    const actor = await screen.findByLabelText('Actor Nightly digest (standing_agent:s-1)')
    expect(actor).toHaveTextContent('Nightly digest')
    expect(actor).toHaveAttribute('data-ref', 'standing_agent:s-1')
    expect(screen.getByLabelText('Tenant org:acme')).toHaveTextContent('org:acme')
  })

  it('shows the raw ref of an unknown standing agent', async () => {
    render(<ScopeChips scoped={{ actor: { type: 'standing_agent', id: 'gone' } }} />)
    await waitFor(() => expect(reads).toContain('/api/standing-agents'))
    expect(screen.getByLabelText('Actor standing_agent:gone')).toHaveTextContent('standing_agent:gone')
  })

  it('reads no standing agents for an app scope', () => {
    render(<ScopeChips scoped={{ actor: { type: 'user', id: '42' } }} />)
    expect(screen.getByLabelText('Actor user:42')).toHaveTextContent('user:42')
    expect(reads).toEqual([])
  })
})

describe('ScopeLine', () => {
  it('names a standing agent actor in the line', async () => {
    render(<ScopeLine scoped={taskScope} />)
    await waitFor(() => expect(screen.getByTestId('scope')).toHaveTextContent('org:acme · Nightly digest'))
  })
})
