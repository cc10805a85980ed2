// The Spend page against a fake server that answers like the real one: the report per grouping
// and stacking, limits kept in memory (422 with field errors, 201 on create, 204 on delete),
// and a paged overrun log.
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import type { LimitChoice, Overrun, SpendingLimit, SpendReport } from '@/lib/api/spend'
import { resetResources } from '@/lib/resource'
import { SpendPage } from './SpendPage'

const STAMP = { created_at: '2026-05-01T00:00:00Z', updated_at: '2026-05-01T00:00:00Z' }

/** The report the server would compute from four ledger rows (one unpriced). */
function report(query: URLSearchParams): SpendReport {
  const by = (query.get('by') ?? 'day') as SpendReport['by']
  const byModel = query.get('stack') === 'model'
  const rows: Record<string, SpendReport['rows']> = {
    day: [
      { key: '2026-05-01', day: '2026-05-01', calls: 2, input_tokens: 1200, output_tokens: 300, cost: '0.0123', unpriced_calls: 0 },
      { key: '2026-05-03', day: '2026-05-03', calls: 2, input_tokens: 800, output_tokens: 100, cost: '0.00042', unpriced_calls: 1 },
    ],
    agent: [
      { key: 'demo.support', calls: 3, input_tokens: 1600, output_tokens: 350, cost: '0.01272', unpriced_calls: 0 },
      { key: 'demo.triage', calls: 1, input_tokens: 400, output_tokens: 50, cost: null, unpriced_calls: 1 },
    ],
  }
  return {
    by,
    currency: 'USD',
    rows: rows[by] ?? [],
    totals: { calls: 4, input_tokens: 2000, output_tokens: 400, cost: '0.01272', unpriced_calls: 1 },
    series: byModel
      ? [
          { day: '2026-05-01', key: 'openai:gpt-5', cost: '0.0123' },
          { day: '2026-05-03', key: 'openai:gpt-5-mini', cost: '0.00042' },
          { day: '2026-05-03', key: 'local:llama', cost: null },
        ]
      : [
          { day: '2026-05-01', key: 'demo.support', cost: '0.0123' },
          { day: '2026-05-03', key: 'demo.support', cost: '0.00042' },
          { day: '2026-05-03', key: 'demo.triage', cost: null },
        ],
    missing_rates: missingRates,
  }
}

/** The currencies the report says have no rate to USD. */
let missingRates: string[] = []

const overrun = (n: number): Overrun => ({
  id: `o${n}`, limit_id: 'l1', user: 'user:42', tenant: 'firm:7', scope: 'tenant', scope_id: 'firm:7', period: 'calendar_month', limit_amount: '25',
  consumed: '24.9', estimated: '0.35', overrun: '0.25', currency: 'USD', agent_key: 'demo.support', conversation_id: null, run_id: null, created_at: '2026-05-02T10:00:00Z',
})

let limits: SpendingLimit[]
/** What `GET /api/agents` lists (none unless a test says: every key then reads as it is). */
let agents: { slug: string; name: string; label: string | null }[] = []

/** What `GET /api/limits/choices` offers per scope. */
const CHOICES: Record<string, LimitChoice[]> = {
  agent: [
    { value: 'demo.support', label: 'Support desk', source: 'discovered' },
    { value: 'config:pirate', label: 'Pirate helper', source: 'configured' },
  ],
  preset: [{ value: 'fast', label: 'Fast and cheap', source: 'registry' }],
  tenant: [
    { value: 'firm:7', label: 'firm:7', source: 'ledger' },
    { value: 'firm:8', label: 'firm:8', source: 'ledger' },
  ],
  user: [],
}
let calls: { method: string; path: string; query: URLSearchParams; body?: Record<string, unknown> }[]

const invalid = (location: string, message: string) =>
  Response.json({ error: { code: 'invalid_request', message: `${location}: ${message}`, fields: [{ location, message }] } }, { status: 422 })

function stored(body: Record<string, unknown>): SpendingLimit {
  return {
    id: `l${limits.length + 1}`, currency: 'USD', timezone: 'UTC', enabled: true, consumed: '0', headroom: String(body.amount),
    window_start: '2026-05-01T00:00:00Z', window_end: '2026-06-01T00:00:00Z', ...STAMP, ...(body as Partial<SpendingLimit>),
  } as SpendingLimit
}

beforeEach(() => {
  resetResources()
  calls = []
  missingRates = []
  agents = []
  limits = []
  limits = [
    stored({ scope: 'tenant', scope_id: 'firm:7', period: 'calendar_month', amount: '25', consumed: '20.5', headroom: '4.5', timezone: 'Europe/Paris', window_start: '2026-04-30T22:00:00Z', window_end: '2026-05-31T22:00:00Z' }),
  ]
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = '', qs = ''] = url.split('?')
      const query = new URLSearchParams(qs)
      const body = init?.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : undefined
      calls.push({ method, path, query, body })
      if (path === '/api/spend') return Response.json(report(query))
      if (path === '/api/agents') return Response.json({ agents, problems: [], targets: [], project_root: '/p' })
      if (path === '/api/limits/choices') {
        const scope = query.get('scope') ?? ''
        return Response.json({ scope, choices: CHOICES[scope] ?? [], truncated: false })
      }
      if (path === '/api/limits/overruns') {
        const page = Number(query.get('page') ?? '1')
        const all = Array.from({ length: 120 }, (_, i) => overrun(i + 1))
        return Response.json({ overruns: all.slice((page - 1) * 50, page * 50), total: all.length })
      }
      if (path === '/api/limits' && method === 'GET') return Response.json({ limits })
      if (path === '/api/limits' && method === 'POST') {
        if (body?.timezone === 'Mars/Base') return invalid('body.timezone', "'Mars/Base' is not an IANA time zone (such as UTC or Europe/Paris)")
        const limit = stored(body ?? {})
        limits.push(limit)
        return Response.json(limit, { status: 201 })
      }
      const one = /^\/api\/limits\/(\w+)$/.exec(path)
      if (one && method === 'DELETE') {
        limits = limits.filter((limit) => limit.id !== one[1])
        return Response.json({ deleted: one[1] })
      }
      if (one && method === 'PATCH') {
        limits = limits.map((limit) => (limit.id === one[1] ? { ...limit, ...(body as Partial<SpendingLimit>) } : limit))
        return Response.json(limits.find((limit) => limit.id === one[1]))
      }
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
})
afterEach(() => vi.unstubAllGlobals())

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.search}</output>
}

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/spend" element={<SpendPage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )

const lastSpendQuery = () => calls.filter((call) => call.path === '/api/spend').at(-1)!.query

describe('Spend', () => {
  it('draws the days as stacked bars, with exact amounts and unpriced never shown as $0', async () => {
    renderAt('/spend?from=2026-05-01&to=2026-05-03')
    const chart = await screen.findByTestId('spend-chart')
    expect(lastSpendQuery().toString()).toBe('by=day&stack=agent&from=2026-05-01&to=2026-05-03')
    // Three days, the empty one included; two segments on the third (one unpriced, no height).
    const bars = within(chart).getAllByTestId('spend-bar')
    expect(bars.map((bar) => bar.getAttribute('data-day'))).toEqual(['2026-05-01', '2026-05-02', '2026-05-03'])
    expect(within(chart).getByTestId('spend-legend')).toHaveTextContent('demo.support$0.0127')
    expect(within(chart).getByTestId('spend-legend')).toHaveTextContent('demo.triageunpriced')

    fireEvent.mouseEnter(bars[2]!)
    const tip = within(chart).getByTestId('spend-tooltip')
    expect(tip).toHaveTextContent('demo.triageunpriced')
    expect(tip).toHaveTextContent('demo.support$0.00042')
    expect(within(tip).getByTestId('spend-tooltip-total')).toHaveTextContent('$0.00042 + unpriced')
    fireEvent.mouseLeave(bars[2]!)
    expect(within(chart).queryByTestId('spend-tooltip')).not.toBeInTheDocument()

    const table = screen.getByRole('table', { name: 'Spend by day' })
    expect(within(table).getAllByTestId('spend-row').map((row) => row.getAttribute('data-key'))).toEqual(['2026-05-01', '2026-05-03'])
    const totals = within(table).getByTestId('spend-totals')
    expect(within(totals).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['Total', '4', '2,000', '400', '$0.0127', '1'])
    expect(within(totals).getByTestId('spend-cost')).toHaveAttribute('title', '$0.01272')
  })

  it('says which currencies have no exchange rate, and only then', async () => {
    const first = renderAt('/spend')
    await screen.findByTestId('spend-chart')
    expect(screen.queryByTestId('missing-rates')).not.toBeInTheDocument()
    first.unmount()

    resetResources()
    missingRates = ['CHF', 'JPY']
    renderAt('/spend?by=agent')
    const notice = await screen.findByTestId('missing-rates')
    expect(notice).toHaveAttribute('role', 'status')
    expect(notice).toHaveTextContent(
      'No exchange rate for CHF, JPY to USD: calls priced in them count as unpriced here, and limits in another currency leave them out, until currency_rates gives one.',
    )
  })

  it('switches the stacking and the grouping, in the URL and in the API query', async () => {
    renderAt('/spend')
    await screen.findByTestId('spend-chart')
    await userEvent.click(within(screen.getByRole('radiogroup', { name: 'Stack by' })).getByRole('radio', { name: 'Model' }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('?stack=model'))
    await waitFor(() => expect(screen.getByTestId('spend-legend')).toHaveTextContent('openai:gpt-5'))
    expect(lastSpendQuery().get('stack')).toBe('model')

    await userEvent.click(within(screen.getByRole('radiogroup', { name: 'Group by' })).getByRole('radio', { name: 'Agent' }))
    const table = await screen.findByRole('table', { name: 'Spend by agent' })
    expect(screen.getByTestId('where')).toHaveTextContent('?by=agent&stack=model')
    const triage = within(table).getAllByTestId('spend-row')[1]!
    expect(within(triage).getByTestId('spend-cost')).toHaveTextContent('unpriced')
    expect(within(triage).getByTestId('spend-cost')).not.toHaveTextContent('$0')

    // A filter narrows the report, and goes again when emptied.
    const agent = screen.getByRole('textbox', { name: 'Agent' })
    await userEvent.type(agent, 'demo.triage{Enter}')
    await waitFor(() => expect(lastSpendQuery().get('agent')).toBe('demo.triage'))
    expect(screen.getByTestId('where')).toHaveTextContent('?by=agent&stack=model&agent=demo.triage')
    await userEvent.clear(screen.getByRole('textbox', { name: 'Agent' }))
    await userEvent.tab()
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(/^\?by=agent&stack=model$/))
    expect(screen.getByRole('textbox', { name: 'Agent' })).toHaveValue('')
  })

  it("creates a limit, with the server's 422 beside its field, and deletes one", async () => {
    renderAt('/spend?tab=limits')
    const first = await screen.findByTestId('limit-row')
    const bar = within(first).getByRole('meter')
    expect(bar).toHaveAttribute('aria-valuenow', '82')
    expect(bar).toHaveAttribute('data-level', 'near')
    expect(within(first).getByTestId('headroom-text')).toHaveTextContent('$20.50 of $25.00 (82%)')
    // The window in the limit's own zone: May in Paris.
    expect(within(first).getByTestId('limit-window')).toHaveTextContent(/May 1, 2026.*Jun 1, 2026.*\(Europe\/Paris\)/)

    await userEvent.click(screen.getByRole('button', { name: 'New limit' }))
    const form = screen.getByRole('form', { name: 'New limit' })
    await userEvent.selectOptions(within(form).getByLabelText(/^Scope/), 'agent')
    await waitFor(() => expect(within(form).getByRole('option', { name: 'Support desk' })).toBeInTheDocument())
    await userEvent.selectOptions(within(form).getByLabelText(/^Applies to/), 'demo.support')
    await userEvent.type(within(form).getByLabelText(/^Amount/), '0')
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    expect(within(form).getByLabelText(/^Amount/)).toHaveAccessibleDescription('Must be more than 0.')
    expect(calls.some((call) => call.method === 'POST')).toBe(false)

    await userEvent.clear(within(form).getByLabelText(/^Amount/))
    await userEvent.type(within(form).getByLabelText(/^Amount/), '12.50')
    await userEvent.type(within(form).getByLabelText(/^Time zone/), 'Mars/Base')
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(within(form).getByLabelText(/^Time zone/)).toHaveAccessibleDescription(/'Mars\/Base' is not an IANA time zone/))
    expect(within(form).getByLabelText(/^Time zone/)).toHaveAttribute('aria-invalid', 'true')

    await userEvent.clear(within(form).getByLabelText(/^Time zone/))
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New limit' })).not.toBeInTheDocument())
    expect(calls.filter((call) => call.method === 'POST').at(-1)!.body).toEqual({ scope: 'agent', scope_id: 'demo.support', period: 'calendar_month', amount: '12.50', enabled: true })
    await waitFor(() => expect(screen.getAllByTestId('limit-row')).toHaveLength(2))
    const added = screen.getAllByTestId('limit-row')[1]!
    expect(within(added).getByTestId('headroom-text')).toHaveTextContent('$0.00 of $12.50 (0%)')

    await userEvent.click(within(added).getByRole('button', { name: 'Delete the limit on agent demo.support' }))
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(screen.getAllByTestId('limit-row')).toHaveLength(1))
    expect(calls.at(-2)).toMatchObject({ method: 'DELETE', path: '/api/limits/l2' })
  })

  it('edits a limit, sending only what changed', async () => {
    renderAt('/spend?tab=limits')
    await userEvent.click(await screen.findByRole('button', { name: 'Edit the limit on tenant firm:7' }))
    const form = screen.getByRole('form', { name: 'Edit the limit on tenant firm:7' })
    expect(within(form).getByLabelText('Time zone')).toHaveValue('Europe/Paris')
    // Unchanged: nothing is sent.
    await userEvent.click(within(form).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.queryByRole('form')).not.toBeInTheDocument())
    expect(calls.some((call) => call.method === 'PATCH')).toBe(false)

    await userEvent.click(screen.getByRole('button', { name: 'Edit the limit on tenant firm:7' }))
    const again = screen.getByRole('form', { name: 'Edit the limit on tenant firm:7' })
    await userEvent.clear(within(again).getByLabelText('Amount'))
    await userEvent.type(within(again).getByLabelText('Amount'), '30.00')
    await userEvent.click(within(again).getByLabelText('Enabled'))
    await userEvent.click(within(again).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(within(screen.getByTestId('limit-row')).getByTestId('headroom-text')).toHaveTextContent('$20.50 of $30.00 (68%)'))
    expect(calls.find((call) => call.method === 'PATCH')).toMatchObject({ path: '/api/limits/l1', body: { amount: '30.00', enabled: false } })
    expect(screen.getByTestId('limit-row')).toHaveTextContent('disabled')
  })

  it('pages through the overrun log, one limit at a time', async () => {
    renderAt('/spend?tab=limits')
    await userEvent.click(await screen.findByRole('button', { name: 'Overruns' }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('?tab=overruns&limit=l1'))
    const table = await screen.findByRole('table', { name: 'Overrun log' })
    expect(within(table).getAllByTestId('overrun-row')).toHaveLength(50)
    expect(within(within(table).getAllByTestId('overrun-row')[0]!).getByTestId('overrun-overrun')).toHaveTextContent('$0.25')
    expect(screen.getByTestId('overrun-count')).toHaveTextContent('1–50 of 120')
    await userEvent.click(screen.getByRole('button', { name: 'Page 3' }))
    await waitFor(() => expect(screen.getByTestId('overrun-count')).toHaveTextContent('101–120 of 120'))
    const asked = calls.filter((call) => call.path === '/api/limits/overruns').at(-1)!.query
    expect(asked.toString()).toBe('limit=l1&page=3')
    expect(screen.getByTestId('where')).toHaveTextContent('?tab=overruns&limit=l1&page=3')
  })

  it('names agents in the legend, the tooltip and the table as the rest of the dashboard does, the slug in a tooltip', async () => {
    agents = [
      { slug: 'demo.support', name: 'support_agent', label: 'Support desk' },
      { slug: 'demo.triage', name: 'triage_agent', label: null },
    ]
    renderAt('/spend?by=agent')
    const chart = await screen.findByTestId('spend-chart')
    const legend = within(chart).getByTestId('spend-legend')
    await waitFor(() => expect(legend).toHaveTextContent('Support desk$0.0127'))
    expect(legend).toHaveTextContent('triage_agentunpriced')
    expect(legend).not.toHaveTextContent('demo.support')
    expect(within(legend).getByText('Support desk')).toHaveAttribute('title', 'demo.support')
    expect(within(legend).getByText('triage_agent')).toHaveAttribute('title', 'demo.triage')

    fireEvent.mouseEnter(within(chart).getAllByTestId('spend-bar').at(-1)!)
    const tip = within(chart).getByTestId('spend-tooltip')
    expect(tip).toHaveTextContent('triage_agentunpriced')
    expect(within(tip).getByText('Support desk')).toHaveAttribute('title', 'demo.support')

    const table = screen.getByRole('table', { name: 'Spend by agent' })
    const support = within(table).getAllByTestId('spend-row')[0]!
    expect(within(support).getByText('Support desk')).toHaveAttribute('title', 'demo.support')

    // Stacked by model, the keys are models: shown as they are.
    await userEvent.click(within(screen.getByRole('radiogroup', { name: 'Stack by' })).getByRole('radio', { name: 'Model' }))
    await waitFor(() => expect(screen.getByTestId('spend-legend')).toHaveTextContent('openai:gpt-5'))
    expect(within(screen.getByTestId('spend-legend')).getByText('openai:gpt-5')).not.toHaveAttribute('title')
  })

  it('picks what a limit applies to from the known agents and presets, and suggests tenants seen in calls', async () => {
    renderAt('/spend?tab=limits')
    await screen.findByTestId('limit-row')
    await userEvent.click(screen.getByRole('button', { name: 'New limit' }))
    const form = screen.getByRole('form', { name: 'New limit' })
    const appliesTo = () => within(form).getByLabelText(/^Applies to/)

    // An agent: a list of the known ones by name, never free text.
    await waitFor(() => expect(within(appliesTo()).getByRole('option', { name: 'Pirate helper' })).toBeInTheDocument())
    expect(appliesTo().tagName).toBe('SELECT')
    expect(within(form).queryByRole('textbox', { name: /^Applies to/ })).not.toBeInTheDocument()
    expect(within(appliesTo()).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose an agent', 'Support desk', 'Pirate helper'])
    expect(within(appliesTo()).getByRole('option', { name: 'Pirate helper' })).toHaveAttribute('value', 'config:pirate')
    await userEvent.selectOptions(appliesTo(), 'Pirate helper')
    expect(appliesTo()).toHaveValue('config:pirate')

    // Another scope: what was picked no longer applies.
    await userEvent.selectOptions(within(form).getByLabelText(/^Scope/), 'preset')
    await waitFor(() => expect(within(appliesTo()).getByRole('option', { name: 'Fast and cheap' })).toBeInTheDocument())
    expect(appliesTo()).toHaveValue('')
    await userEvent.type(within(form).getByLabelText(/^Amount/), '3')
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    expect(appliesTo()).toHaveAccessibleDescription('Required.')

    // A tenant: the ones seen in calls are suggested, a new one may be typed.
    await userEvent.selectOptions(within(form).getByLabelText(/^Scope/), 'tenant')
    expect(appliesTo().tagName).toBe('INPUT')
    const seen = within(form).getByTestId('applies-to-seen')
    await waitFor(() => expect([...seen.querySelectorAll('option')].map((option) => option.value)).toEqual(['firm:7', 'firm:8']))
    expect(appliesTo()).toHaveAttribute('list', seen.id)
    await userEvent.type(appliesTo(), 'firm:9')
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New limit' })).not.toBeInTheDocument())
    expect(calls.filter((call) => call.method === 'POST').at(-1)!.body).toMatchObject({ scope: 'tenant', scope_id: 'firm:9', amount: '3' })
    // Each scope's choices are asked for once it is picked (and again once a limit changed).
    expect(calls.filter((call) => call.path === '/api/limits/choices').map((call) => call.query.get('scope')).slice(0, 3)).toEqual(['agent', 'preset', 'tenant'])
  })

  it('shows the most one call may reserve under each limit, the agent by name', async () => {
    agents = [{ slug: 'demo.support', name: 'support_agent', label: 'Support desk' }]
    limits = [
      stored({ scope: 'agent', scope_id: 'demo.support', period: 'calendar_day', amount: '5', worst_call: { amount: '0.02', currency: 'USD', output_tokens: 2000, model: 'synapse:synapse-demo', agent: 'demo.support' } }),
      stored({ scope: 'preset', scope_id: 'fast', period: 'calendar_day', amount: '5', worst_call: { amount: null, currency: 'USD', output_tokens: 4096, model: 'demo', agent: null } }),
      stored({ scope: 'agent', scope_id: 'named-in-my-app', period: 'calendar_day', amount: '5', worst_call: null }),
    ]
    renderAt('/spend?tab=limits')
    await waitFor(() => expect(screen.getAllByTestId('limit-row')).toHaveLength(3))
    const [support, preset, other] = screen.getAllByTestId('limit-row')
    await waitFor(() => expect(within(support!).getByTestId('limit-agent')).toHaveTextContent('Support desk'))
    expect(within(support!).getByTestId('limit-agent')).toHaveAttribute('title', 'demo.support')
    expect(within(support!).getByTestId('limit-worst')).toHaveTextContent('One call reserves up to $0.02 + input (2,000 output tokens of synapse:synapse-demo, Support desk)')
    expect(within(preset!).getByTestId('limit-worst')).toHaveTextContent("One call's price is unknown: not held to this limit (4,096 output tokens of demo)")
    expect(within(other!).queryByTestId('limit-worst')).not.toBeInTheDocument()
    expect(other).toHaveTextContent('agent named-in-my-app')
  })

  it('names the agent of each refused call as the rest of the dashboard does', async () => {
    agents = [{ slug: 'demo.support', name: 'support_agent', label: 'Support desk' }]
    renderAt('/spend?tab=overruns')
    const table = await screen.findByRole('table', { name: 'Overrun log' })
    const first = within(table).getAllByTestId('overrun-row')[0]!
    await waitFor(() => expect(within(first).getByTestId('overrun-agent')).toHaveTextContent('Support desk'))
    expect(within(first).getByTestId('overrun-agent')).toHaveAttribute('title', 'demo.support')
  })
})
