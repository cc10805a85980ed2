// The Rules page against a fake server that answers like the real one: rules kept in memory and
// listed in the server's order (422 with field errors on a bad label), and the preview's block of
// the enabled rules of a tenant.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { Rule } from './api'
import RulesPage from './RulesPage'

const STAMP = '2026-05-01T00:00:00.000Z'
const LABEL = /^[a-z_]+:\S+$/

let rules: Rule[]
let calls: { method: string; path: string; query: URLSearchParams; body?: Record<string, unknown> }[]

function rule(over: Partial<Rule> & Pick<Rule, 'id' | 'tenant' | 'text'>): Rule {
  return { subject: null, applies_to: null, priority: 0, enabled: true, created_by: null, created_at: STAMP, updated_at: STAMP, ...over }
}

const invalid = (location: string, message: string) =>
  Response.json({ error: { code: 'invalid_request', message: `${location.split('.')[1]}: ${message}`, fields: [{ location, message }] } }, { status: 422 })

const key = (r: Rule) => [r.tenant, r.subject === null ? 0 : 1, r.subject ?? '', r.applies_to === null ? 0 : 1, r.applies_to ?? '']
const sorted = () =>
  [...rules].sort((a, b) => {
    const [x, y] = [key(a), key(b)]
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1
    return a.priority - b.priority || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)
  })

function badLabel(body: Record<string, unknown>): Response | null {
  for (const name of ['tenant', 'subject', 'applies_to']) {
    const value = body[name]
    if (typeof value === 'string' && !LABEL.test(value)) return invalid(`body.${name}`, `expected 'type:id', got '${value}'.`)
  }
  return null
}

function preview(query: URLSearchParams): Response {
  const tenant = query.get('tenant') ?? ''
  if (!tenant) return invalid('query.tenant', "required: whose rule it is, as 'type:id' (for example 'org:acme').")
  const found = [...rules]
    .filter((r) => r.enabled && r.tenant === tenant && (r.subject === null || r.subject === query.get('subject')))
    .filter((r) => r.applies_to === null || r.applies_to === query.get('actor'))
    .sort((a, b) => a.priority - b.priority || a.created_at.localeCompare(b.created_at))
  const shared = found.filter((r) => r.applies_to === null).map((r) => r.text)
  const personal = found.filter((r) => r.applies_to !== null).map((r) => r.text)
  const lines = (heading: string, texts: string[]) => (texts.length ? [heading, ...texts.map((text) => `- ${text}`)].join('\n') : '')
  const block = [lines('RULES.', shared), lines('PREFERENCES.', personal)].filter(Boolean).join('\n\n')
  return Response.json({ shared, personal, block })
}

beforeEach(() => {
  resetResources()
  calls = []
  rules = [
    rule({ id: 'r1', tenant: 'firm:7', text: 'Never quote fees over chat.' }),
    rule({ id: 'r2', tenant: 'firm:7', text: 'Cite the case number in every answer.', priority: 1 }),
    rule({ id: 'r3', tenant: 'firm:7', text: 'Reply in Spanish.', applies_to: 'user:maria' }),
    rule({ id: 'r4', tenant: 'firm:7', subject: 'case:42', text: 'The client is a minor: no names.' }),
    rule({ id: 'r5', tenant: 'firm:8', text: 'Answer in one paragraph.' }),
  ]
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = '', qs = ''] = url.split('?')
      const query = new URLSearchParams(qs)
      const body = init?.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : undefined
      calls.push({ method, path, query, body })
      if (path === '/api/rules/preview') return preview(query)
      if (path === '/api/rules' && method === 'GET') {
        const tenant = query.get('tenant')
        return Response.json({ rules: sorted().filter((r) => tenant === null || r.tenant === tenant) })
      }
      if (path === '/api/rules' && method === 'POST') {
        const refused = badLabel(body ?? {})
        if (refused) return refused
        const added = rule({ id: `r${rules.length + 1}`, created_at: `2026-05-02T00:00:0${rules.length}.000Z`, ...(body as Pick<Rule, 'tenant' | 'text'>) })
        rules.push(added)
        return Response.json(added, { status: 201 })
      }
      const one = /^\/api\/rules\/(\w+)$/.exec(path)
      const found = rules.find((r) => r.id === one?.[1])
      if (found && method === 'PATCH') {
        const refused = badLabel(body ?? {})
        if (refused) return refused
        Object.assign(found, body)
        return Response.json(found)
      }
      if (found && method === 'DELETE') {
        rules = rules.filter((r) => r !== found)
        return Response.json({ deleted: found.id })
      }
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
})
afterEach(() => vi.unstubAllGlobals())

function Where() {
  return <output data-testid="where">{useLocation().search}</output>
}

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/rules" element={<RulesPage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )

const texts = (within_: HTMLElement = document.body) => within(within_).getAllByTestId('rule-text').map((el) => el.textContent)
const rowOf = (text: string) => screen.getByText(text).closest('li')!
const patches = () => calls.filter((call) => call.method === 'PATCH')

describe('Rules', () => {
  it('lists the rules by tenant, then subject, shared before personal, and filters by tenant', async () => {
    renderAt('/rules')
    await screen.findAllByTestId('rule-row')
    const tenants = screen.getAllByTestId('rules-tenant')
    expect(tenants.map((section) => within(section).getByRole('heading', { level: 2 }).textContent)).toEqual(['firm:7', 'firm:8'])
    const scopes = within(tenants[0]!).getAllByTestId('rules-scope')
    expect(scopes.map((section) => within(section).getByRole('heading', { level: 3 }).textContent)).toEqual(['Whole tenant', 'case:42'])
    expect(texts(scopes[0])).toEqual(['Never quote fees over chat.', 'Cite the case number in every answer.', 'Reply in Spanish.'])
    expect(within(rowOf('Never quote fees over chat.')).getByTestId('rule-applies-to')).toHaveTextContent('Applies to everyone')
    expect(within(rowOf('Reply in Spanish.')).getByTestId('rule-applies-to')).toHaveTextContent('Applies to user:maria')
    expect(within(rowOf('Cite the case number in every answer.')).getByTestId('rule-priority')).toHaveTextContent('Priority 1')
    expect(within(rowOf('Never quote fees over chat.')).getByText('Enabled')).toBeInTheDocument()

    await userEvent.type(screen.getByRole('textbox', { name: 'Filter by tenant' }), 'firm:8{Enter}')
    await waitFor(() => expect(texts()).toEqual(['Answer in one paragraph.']))
    expect(screen.getByTestId('where')).toHaveTextContent('?tenant=firm%3A8')
    expect(calls.filter((call) => call.path === '/api/rules').at(-1)!.query.get('tenant')).toBe('firm:8')
  })

  it('explains rules when there are none', async () => {
    rules = []
    renderAt('/rules')
    expect(await screen.findByText('No rules yet')).toBeInTheDocument()
    expect(screen.getByText(/synapse rules add "Never quote fees over chat." --tenant firm:7/)).toBeInTheDocument()
  })

  it("adds a rule, with the server's 422 beside the field it names", async () => {
    renderAt('/rules?tenant=firm:7')
    await screen.findAllByTestId('rule-row')
    await userEvent.click(screen.getByRole('button', { name: 'New rule' }))
    const form = screen.getByRole('form', { name: 'New rule' })
    expect(within(form).getByLabelText('Tenant')).toHaveValue('firm:7')
    await userEvent.clear(within(form).getByLabelText('Tenant'))
    await userEvent.type(within(form).getByLabelText('Tenant'), 'acme')
    await userEvent.type(within(form).getByLabelText('Text'), 'Sign every answer.')
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }))
    await waitFor(() => expect(within(form).getByLabelText('Tenant')).toHaveAccessibleDescription("expected 'type:id', got 'acme'."))
    expect(within(form).getByLabelText('Tenant')).toHaveAttribute('aria-invalid', 'true')
    expect(within(form).getByLabelText('Text')).not.toHaveAttribute('aria-invalid')

    await userEvent.type(within(form).getByLabelText('Priority'), 'x')
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }))
    expect(within(form).getByLabelText('Priority')).toHaveAccessibleDescription('A whole number, such as 0 or -5.')
    await userEvent.clear(within(form).getByLabelText('Priority'))
    await userEvent.type(within(form).getByLabelText('Priority'), '-1')
    await userEvent.clear(within(form).getByLabelText('Tenant'))
    await userEvent.type(within(form).getByLabelText('Tenant'), 'firm:7')
    await userEvent.type(within(form).getByLabelText('Applies to'), 'user:maria')
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New rule' })).not.toBeInTheDocument())
    expect(calls.filter((call) => call.method === 'POST').at(-1)!.body).toEqual({ tenant: 'firm:7', text: 'Sign every answer.', applies_to: 'user:maria', priority: -1 })
    await waitFor(() => expect(texts()).toContain('Sign every answer.'))
  })

  it('edits a rule, sending only what changed, and deletes one after a confirm', async () => {
    renderAt('/rules')
    await screen.findAllByTestId('rule-row')
    await userEvent.click(within(rowOf('The client is a minor: no names.')).getByRole('button', { name: 'Edit' }))
    const form = screen.getByRole('form', { name: 'Edit rule' })
    expect(within(form).getByLabelText('Tenant')).toBeDisabled()
    await userEvent.clear(within(form).getByLabelText('Subject'))
    await userEvent.click(within(form).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Edit rule' })).not.toBeInTheDocument())
    expect(patches().at(-1)).toMatchObject({ path: '/api/rules/r4', body: { subject: null } })
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'case:42' })).not.toBeInTheDocument())

    await userEvent.click(within(rowOf('Answer in one paragraph.')).getByRole('button', { name: 'Delete' }))
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(screen.queryByText('Answer in one paragraph.')).not.toBeInTheDocument())
    expect(calls.some((call) => call.method === 'DELETE' && call.path === '/api/rules/r5')).toBe(true)
  })

  it('pauses and resumes a rule', async () => {
    renderAt('/rules')
    await screen.findAllByTestId('rule-row')
    await userEvent.click(within(rowOf('Never quote fees over chat.')).getByRole('button', { name: 'Pause' }))
    await waitFor(() => expect(within(rowOf('Never quote fees over chat.')).getByTestId('rule-paused')).toHaveTextContent('Paused'))
    expect(patches().at(-1)).toMatchObject({ path: '/api/rules/r1', body: { enabled: false } })
    await userEvent.click(within(rowOf('Never quote fees over chat.')).getByRole('button', { name: 'Resume' }))
    await waitFor(() => expect(within(rowOf('Never quote fees over chat.')).queryByTestId('rule-paused')).not.toBeInTheDocument())
    expect(patches().at(-1)).toMatchObject({ path: '/api/rules/r1', body: { enabled: true } })
  })

  it('moves a rule up and down among the rules ordered with it', async () => {
    renderAt('/rules?tenant=firm:7')
    await screen.findAllByTestId('rule-row')
    const cite = () => rowOf('Cite the case number in every answer.')
    expect(within(cite()).getByRole('button', { name: 'Move down' })).toBeDisabled()
    expect(within(rowOf('Reply in Spanish.')).getByRole('button', { name: 'Move up' })).toBeDisabled()
    await userEvent.click(within(cite()).getByRole('button', { name: 'Move up' }))
    await waitFor(() => expect(texts().slice(0, 2)).toEqual(['Cite the case number in every answer.', 'Never quote fees over chat.']))
    expect(patches().map((call) => [call.path, call.body])).toEqual([
      ['/api/rules/r2', { priority: 0 }],
      ['/api/rules/r1', { priority: 1 }],
    ])
  })

  it('previews the block of a scope, and follows a paused rule', async () => {
    renderAt('/rules')
    await screen.findAllByTestId('rule-row')
    const form = screen.getByRole('form', { name: 'Rules preview' })
    await userEvent.click(within(form).getByRole('button', { name: 'Preview' }))
    await waitFor(() => expect(within(form).getByLabelText('Tenant')).toHaveAccessibleDescription(/^required: whose rule it is/))

    await userEvent.type(within(form).getByLabelText('Tenant'), 'firm:7')
    await userEvent.type(within(form).getByLabelText('Actor'), 'user:maria')
    await userEvent.click(within(form).getByRole('button', { name: 'Preview' }))
    const block = await screen.findByTestId('rules-block')
    expect(block.tagName).toBe('PRE')
    expect(block.textContent).toBe('RULES.\n- Never quote fees over chat.\n- Cite the case number in every answer.\n\nPREFERENCES.\n- Reply in Spanish.')
    expect(screen.getByTestId('rules-counts')).toHaveTextContent('2 shared, 1 personal')
    expect(calls.filter((call) => call.path === '/api/rules/preview').at(-1)!.query.toString()).toBe('tenant=firm%3A7&actor=user%3Amaria')

    await userEvent.click(within(rowOf('Never quote fees over chat.')).getByRole('button', { name: 'Pause' }))
    await waitFor(() => expect(screen.getByTestId('rules-block')).not.toHaveTextContent('Never quote fees'))

    await userEvent.clear(within(form).getByLabelText('Tenant'))
    await userEvent.type(within(form).getByLabelText('Tenant'), 'firm:9')
    await userEvent.click(within(form).getByRole('button', { name: 'Preview' }))
    expect(await screen.findByText('No rule applies.')).toBeInTheDocument()
    expect(screen.queryByTestId('rules-block')).not.toBeInTheDocument()
  })
})
