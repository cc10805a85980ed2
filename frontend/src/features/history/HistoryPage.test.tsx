// History against a fake server: forks under their source, origin and scope on each row, and the
// origin and scope filters in the URL and in the API query.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, useLocation } from 'react-router'
import { App } from '@/app/App'
import type { ConversationRow, ConversationsResponse } from '@/lib/api/types'
import { resetResources } from '@/lib/resource'

const id = (n: number) => `0193aaaa-0000-7000-8000-${String(n).padStart(12, '0')}`
const row = (n: number, title: string, extra: Partial<ConversationRow> = {}): ConversationRow => ({
  id: id(n), agent_key: 'demo.support-agent', agent_name: 'support_agent', title, status: 'success', origin: 'playground', tenant: null,
  actor: null, subject: null, forked_from_id: null, input_tokens: 10, output_tokens: 5, total_tokens: 15, cost: null, message_count: 2,
  tool_count: 0, created_at: '2026-11-30T06:00:00.000Z', updated_at: '2026-11-30T06:00:00.000Z', ...extra,
})

// Newest first, as the API sends them: the fork is newer than its source.
const rows = [
  row(3, 'Re-run', { forked_from_id: id(1) }),
  row(2, 'Case intake', { cost: 0.00042, origin: 'app', tenant: { type: 'firm', id: '7' }, actor: { type: 'user', id: '42' }, subject: { type: 'case', id: '9' } }),
  row(1, 'Orders'),
  row(4, 'Old re-run', { forked_from_id: id(99) }),
]

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.search}</output>
}

let queries: URLSearchParams[] = []
let listed: ConversationsResponse['conversations'] = rows

beforeEach(() => {
  resetResources()
  queries = []
  listed = rows
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url.startsWith('/api/conversations?')) {
        queries.push(new URLSearchParams(url.split('?')[1]))
        return Response.json({ conversations: listed, total: listed.length, total_exact: true, page: 1, page_size: 25, pages: 1 })
      }
      if (url === '/api/agents') return Response.json({ agents: [], problems: [], targets: [], project_root: '/p' })
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

describe('History', () => {
  it('shows a search result\'s snippet under its title with the matches marked', async () => {
    listed = [
      { ...row(5, 'Orders'), snippet: '…the parcel left the depot at <b>noon</b>…', snippet_matches: [[21, 26]] },
      row(6, 'Depot visit'),
    ]
    renderAt('/history?search=depot')
    const table = await screen.findByRole('table', { name: 'Conversations' })
    const [withSnippet, without] = within(table).getAllByTestId('history-row')
    const snippet = within(withSnippet!).getByTestId('search-snippet')
    expect(snippet).toHaveTextContent('…the parcel left the depot at <b>noon</b>…')
    expect(Array.from(snippet.querySelectorAll('mark')).map((mark) => mark.textContent)).toEqual(['depot'])
    expect(snippet.querySelector('b')).toBeNull()
    expect(within(without!).queryByTestId('search-snippet')).not.toBeInTheDocument()
  })

  it('groups a fork under its source and links a fork whose source is elsewhere', async () => {
    renderAt('/history')
    const table = await screen.findByRole('table', { name: 'Conversations' })
    const shown = within(table).getAllByTestId('history-row')
    expect(shown.map((r) => [within(r).getAllByRole('link')[0]!.textContent, r.getAttribute('data-depth')])).toEqual([
      ['Case intake', '0'],
      ['Orders', '0'],
      ['Re-run', '1'],
      ['Old re-run', '0'],
    ])
    expect(within(shown[2]!).getByRole('img', { name: 'Fork' })).toBeInTheDocument()
    expect(within(shown[3]!).getByTestId('fork-of')).toHaveAttribute('href', `/agents/demo.support-agent/c/${id(99)}`)
    // Origin and scope, compactly; the playground's own rows carry no badge.
    expect(within(shown[0]!).getByTestId('origin-badge')).toHaveTextContent('app')
    expect(within(shown[0]!).getByTestId('scope')).toHaveTextContent('firm:7 · user:42 · case:9')
    expect(within(shown[0]!).getByTestId('scope')).toHaveAccessibleName('Scope: Tenant firm:7, actor user:42, subject case:9')
    expect(within(shown[1]!).queryByTestId('origin-badge')).not.toBeInTheDocument()
  })

  it('shows each conversation\'s cost beside its tokens: the digits of a fraction of a cent, unpriced never as $0', async () => {
    renderAt('/history')
    const table = await screen.findByRole('table', { name: 'Conversations' })
    expect(within(table).getByRole('columnheader', { name: 'Cost' })).toBeInTheDocument()
    const [priced, unpriced] = within(table).getAllByTestId('history-row')
    expect(within(priced!).getByTestId('history-cost')).toHaveTextContent('$0.00042')
    expect(within(unpriced!).getByTestId('history-cost')).toHaveTextContent(/^unpriced$/)
  })

  it('gives each row what its narrow-window card shows: title, agent, tokens (named), cost and date', async () => {
    listed = [row(2, 'Case intake', { cost: 0.00042, total_tokens: 1234 })]
    renderAt('/history')
    const table = await screen.findByRole('table', { name: 'Conversations' })
    const [card] = within(table).getAllByTestId('history-row')
    expect(within(card!).getByRole('link', { name: 'Case intake' })).toBeInTheDocument()
    expect(within(card!).getByTestId('history-agent')).toHaveTextContent('support_agent')
    expect(within(card!).getByTestId('history-tokens')).toHaveTextContent(/^1\.2k tokens$/)
    expect(within(card!).getByTestId('history-cost')).toHaveTextContent('$0.00042')
    expect(within(card!).getByTestId('history-date')).toHaveTextContent(/2026/)
  })

  it('filters by origin and scope, in the URL and in the API query', async () => {
    renderAt('/history')
    await screen.findByRole('table', { name: 'Conversations' })
    await userEvent.click(screen.getByRole('button', { name: /^Origin/ }))
    // jsdom has no Popover API: open popovers still count as display:none to the role queries.
    await userEvent.click(screen.getByRole('checkbox', { name: /^app/, hidden: true }))
    await userEvent.click(screen.getByRole('checkbox', { name: /^task/, hidden: true }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('?origin=app&origin=task'))
    await waitFor(() => expect(queries.at(-1)!.getAll('origin')).toEqual(['app', 'task']))

    await userEvent.click(screen.getByRole('button', { name: /^Scope/ }))
    const tenant = screen.getByRole('textbox', { name: 'Tenant', hidden: true })
    await userEvent.type(tenant, ':7')
    expect(screen.getByRole('alert', { hidden: true })).toHaveTextContent('type:id')
    expect(screen.getByRole('button', { name: 'Apply', hidden: true })).toBeDisabled()
    await userEvent.clear(tenant)
    await userEvent.type(tenant, 'firm:7')
    await userEvent.type(screen.getByRole('textbox', { name: 'Subject', hidden: true }), 'case{Enter}')
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('?origin=app&origin=task&tenant=firm%3A7&subject=case'))
    await waitFor(() => expect(queries.at(-1)!.get('tenant')).toBe('firm:7'))
    expect(queries.at(-1)!.get('subject')).toBe('case')
    expect(screen.getByTestId('clear-filters')).toHaveTextContent('3')

    await userEvent.click(screen.getByTestId('clear-filters'))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(/^$/))
  })
})
