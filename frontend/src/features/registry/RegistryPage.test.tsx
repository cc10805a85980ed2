// The registry area against a fake server that keeps entries in memory and answers like the
// real one: 422 with field errors, 409 for a taken key, the provider's secret never sent back.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, useLocation } from 'react-router'
import { App } from '@/app/App'
import { resetResources } from '@/lib/resource'

type Row = Record<string, unknown> & { key: string }
const STAMP = { created_at: '2026-11-30T06:00:00.000Z', updated_at: '2026-11-30T06:00:00.000Z' }

let store: Record<string, Row[]>
let writes: { method: string; url: string; body: Record<string, unknown> }[]

const invalid = (location: string, message: string) =>
  Response.json({ error: { code: 'invalid_request', message: `${location}: ${message}`, fields: [{ location, message }] } }, { status: 422 })

/** What the server stores and answers for a written body (the secret becomes secret_set/last4). */
function shape(kind: string, body: Record<string, unknown>, was: Row | undefined): Row {
  const row: Row = { ...STAMP, ...was, ...body } as Row
  if (kind === 'providers') {
    if ('api_key' in body) {
      const key = body.api_key as string | null
      row.secret_set = key !== null
      row.secret_last4 = key ? key.slice(-4) : null
    }
    delete row.api_key
  }
  if (kind === 'agents') {
    row.slug = `config:${row.key}`
    row.version = was ? (was.version as number) + 1 : 1
  }
  return row
}

function serve() {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = ''] = url.split('?')
      const match = /^\/api\/registry\/(\w+)(?:\/([^/]+))?$/.exec(path)
      if (match && match[1]! in store) {
        const kind = match[1]!
        const key = match[2] && decodeURIComponent(match[2])
        const rows = store[kind]!
        if (method === 'GET') return Response.json({ [kind]: rows })
        const body = init?.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : {}
        writes.push({ method, url, body })
        const spec = body.spec as { output_schema?: { type?: unknown } } | undefined
        if (spec?.output_schema?.type === 'nonsense') return invalid('body.spec.output_schema.type', "not a valid JSON Schema: 'nonsense' is not valid under any of the given schemas")
        if (method === 'POST') {
          if (rows.some((row) => row.key === body.key)) return Response.json({ error: { code: 'conflict', message: `A ${kind.slice(0, -1)} with key '${String(body.key)}' exists already.` } }, { status: 409 })
          if (typeof body.temperature === 'number' && body.temperature > 2) return invalid('body.temperature', 'Input should be less than or equal to 2')
          const row = shape(kind, body, undefined)
          rows.push(row)
          return Response.json(row, { status: 201 })
        }
        const index = rows.findIndex((row) => row.key === key)
        if (index < 0) return Response.json({ error: { code: 'not_found', message: `No ${kind} with key ${key}.` } }, { status: 404 })
        if (method === 'DELETE') return Response.json(rows.splice(index, 1)[0])
        rows[index] = shape(kind, body, rows[index])
        return Response.json(rows[index])
      }
      if (path === '/api/registry/tools') return Response.json({ tools: [{ name: 'lookup_order', tags: ['support'], description: null, module: 'app' }] })
      if (path === '/api/agents') return Response.json({ agents: [], problems: [], targets: [], project_root: '/p' })
      if (path === '/api/health') return Response.json({ status: 'ok', version: '9.9.9' })
      if (path === '/api/conversations') return Response.json({ conversations: [], total: 0, page: 1, page_size: 25, pages: 0 })
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
}

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.pathname + location.search}</output>
}

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <App />
      <Where />
    </MemoryRouter>,
  )

beforeEach(() => {
  resetResources()
  writes = []
  store = { providers: [], models: [], presets: [], tones: [], agents: [] }
  serve()
})
afterEach(() => vi.unstubAllGlobals())

const dialog = () => screen.getByRole('form', { name: /^(New|Edit) / })
const field = (name: string | RegExp) => within(dialog()).getByLabelText(name)

describe('the registry', () => {
  it('creates a preset (its 422 beside the field, a 409 said plainly), then edits it', async () => {
    store.presets!.push({ key: 'taken', name: '', model: 'demo', temperature: null, max_tokens: null, top_p: null, streaming: true, timeout_s: null, provider_options: {}, is_sandbox: false, ...STAMP })
    renderAt('/registry/presets')
    await userEvent.click(await screen.findByRole('button', { name: 'New preset' }))
    await userEvent.type(field(/^Key/), 'warm')
    await userEvent.type(field(/^Model/), 'demo')
    await userEvent.type(field('Temperature'), '3')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(field('Temperature')).toHaveAccessibleDescription('Input should be less than or equal to 2'))
    expect(field('Temperature')).toHaveAttribute('aria-invalid', 'true')

    await userEvent.clear(field('Temperature'))
    await userEvent.type(field('Temperature'), '0.7')
    await userEvent.clear(field(/^Key/))
    await userEvent.type(field(/^Key/), 'taken')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Create' }))
    expect(await within(dialog()).findByRole('alert')).toHaveTextContent("A preset with key 'taken' exists already.")

    await userEvent.clear(field(/^Key/))
    await userEvent.type(field(/^Key/), 'warm')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New preset' })).not.toBeInTheDocument())
    expect(writes.at(-1)).toMatchObject({ method: 'POST', body: { key: 'warm', model: 'demo', temperature: 0.7, max_tokens: null, streaming: true, provider_options: {} } })
    const row = await waitFor(() => screen.getAllByTestId('registry-row').find((r) => r.dataset.key === 'warm')!)
    expect(row).toHaveTextContent('0.7')

    await userEvent.click(within(row).getByRole('button', { name: 'Edit warm' }))
    expect(field(/^Key/)).toHaveAttribute('readonly')
    expect(field('Temperature')).toHaveValue('0.7')
    await userEvent.type(field('Name'), 'Warm and friendly')
    const options = field('Provider options')
    await userEvent.clear(options)
    await userEvent.type(options, '[[1]')
    expect(options).toHaveAccessibleDescription(/JSON object/)
    await userEvent.clear(options)
    await userEvent.type(options, '{{"seed": 7}')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(writes.at(-1)?.method).toBe('PATCH'))
    expect(writes.at(-1)!.url).toBe('/api/registry/presets/warm')
    expect(writes.at(-1)!.body).not.toHaveProperty('key')
    expect(writes.at(-1)!.body).toMatchObject({ name: 'Warm and friendly', temperature: 0.7, provider_options: { seed: 7 } })
    await waitFor(() => expect(screen.getAllByTestId('registry-row').find((r) => r.dataset.key === 'warm')).toHaveTextContent('Warm and friendly'))
  })

  it("a provider's key is write-only: last four shown, replaced or removed", async () => {
    store.providers!.push({ key: 'local', kind: 'openai-compatible', name: 'Local', base_url: 'http://127.0.0.1:11434/v1', secret_set: true, secret_last4: 'abcd', options: {}, enabled: true, ...STAMP })
    renderAt('/registry/providers')
    const row = await screen.findByTestId('registry-row')
    expect(row).toHaveTextContent('set · ••••abcd')
    await userEvent.click(within(row).getByRole('button', { name: 'Edit local' }))
    expect(within(dialog()).getByTestId('secret-status')).toHaveTextContent('set · ••••abcd')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Replace' }))
    await userEvent.type(field('API key'), 'sk-secret-wxyz')
    expect(document.body.innerHTML).not.toContain('sk-secret-wxyz')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(writes.at(-1)?.body.api_key).toBe('sk-secret-wxyz'))
    await waitFor(() => expect(screen.getByTestId('registry-row')).toHaveTextContent('set · ••••wxyz'))

    await userEvent.click(screen.getByRole('button', { name: 'Edit local' }))
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Remove' }))
    expect(within(dialog()).getByText('Removed when you save.')).toBeInTheDocument()
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(writes.at(-1)?.body).toHaveProperty('api_key', null))
    await waitFor(() => expect(screen.getByTestId('registry-row')).toHaveTextContent('not set'))
  })

  it('New agent creates it with its preset, tone and tools, then opens its playground', async () => {
    store.presets!.push({ key: 'warm', name: 'Warm', model: 'demo', temperature: 0.7, max_tokens: null, top_p: null, streaming: true, timeout_s: null, provider_options: {}, is_sandbox: false, ...STAMP })
    store.tones!.push({ key: 'pirate', name: 'Pirate', emoji: '🏴‍☠️', instructions: 'Talk like a pirate.', ...STAMP })
    renderAt('/registry/agents')
    await userEvent.click(await screen.findByRole('button', { name: 'New agent' }))
    await userEvent.type(field(/^Key/), 'deckhand')
    await userEvent.type(field('Name'), 'Deckhand')
    await waitFor(() => expect(within(field('Preset')).getByRole('option', { name: 'Warm' })).toBeInTheDocument())
    await userEvent.selectOptions(field('Preset'), 'warm')
    await waitFor(() => expect(within(field('Tone')).getByRole('option', { name: /Pirate/ })).toBeInTheDocument())
    await userEvent.selectOptions(field('Tone'), 'pirate')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Pick tools' }))
    await userEvent.click(screen.getByRole('checkbox', { name: /lookup_order/, hidden: true }))
    await userEvent.type(field('Tools'), 'support{Enter}')
    expect(within(dialog()).getByRole('list', { name: 'Chosen tools' })).toHaveTextContent('tag:support')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Create and open' }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/agents/config:deckhand'))
    expect(writes.at(-1)!.body).toMatchObject({ key: 'deckhand', name: 'Deckhand', preset_key: 'warm', tone_key: 'pirate', tools: ['lookup_order', 'tag:support'], enabled: true, is_sandbox: false })
  })

  it("edits an agent's output and deps schemas: shown as stored, a 422 beside the field keeps what was typed, other spec keys kept", async () => {
    const schema = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }
    store.agents!.push({ key: 'orders', slug: 'config:orders', name: '', description: '', instructions: '', preset_key: null, tone_key: null, tools: [], rag_sources: [], access: { tenants: [], actors: [] }, spec: { retries: 2, output_schema: schema }, version: 1, is_sandbox: false, enabled: true, ...STAMP })
    renderAt('/registry/agents')
    const row = await waitFor(() => screen.getAllByTestId('registry-row').find((r) => r.dataset.key === 'orders')!)
    await userEvent.click(within(row).getByRole('button', { name: 'Edit orders' }))
    const output = field('Output schema')
    expect(JSON.parse((output as HTMLTextAreaElement).value)).toEqual(schema)
    expect(field('Deps schema')).toHaveValue('')

    const typed = '{"type": "nonsense"}'
    await userEvent.clear(output)
    await userEvent.click(output)
    await userEvent.paste(typed)
    const deps = field('Deps schema')
    await userEvent.click(deps)
    await userEvent.paste('{"type": "object", "properties": {"account_id": {"type": "string"}}}')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(field('Output schema')).toHaveAccessibleDescription("type: not a valid JSON Schema: 'nonsense' is not valid under any of the given schemas"))
    expect(field('Output schema')).toHaveAttribute('aria-invalid', 'true')
    expect(field('Output schema')).toHaveValue(typed)
    expect(JSON.parse((field('Deps schema') as HTMLTextAreaElement).value)).toEqual({ type: 'object', properties: { account_id: { type: 'string' } } })
    expect(within(dialog()).queryByRole('alert')).not.toBeInTheDocument()

    await userEvent.clear(field('Output schema'))
    await userEvent.click(field('Output schema'))
    await userEvent.paste('{"type": "object", "properties": {"status": {"type": "string"}}}')
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Edit agent orders' })).not.toBeInTheDocument())
    expect(writes.at(-1)).toMatchObject({ method: 'PATCH', url: '/api/registry/agents/orders' })
    expect(writes.at(-1)!.body.spec).toEqual({
      retries: 2,
      output_schema: { type: 'object', properties: { status: { type: 'string' } } },
      deps_schema: { type: 'object', properties: { account_id: { type: 'string' } } },
    })

    // Emptied, a schema is removed from the spec; the spec's other keys stay.
    const saved = await waitFor(() => screen.getAllByTestId('registry-row').find((r) => r.dataset.key === 'orders')!)
    await userEvent.click(within(saved).getByRole('button', { name: 'Edit orders' }))
    await userEvent.clear(field('Deps schema'))
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(writes.at(-1)!.body.spec).toEqual({ retries: 2, output_schema: { type: 'object', properties: { status: { type: 'string' } } } }))
  })

  it("names each cell's column, for the stacked rows of a narrow window; an enabled entry's state cell is empty", async () => {
    store.providers!.push(
      { key: 'local', kind: 'openai-compatible', name: 'Local', base_url: 'http://127.0.0.1:11434/v1', secret_set: false, secret_last4: null, options: {}, enabled: true, ...STAMP },
      { key: 'off', kind: 'openai', name: 'Off', base_url: null, secret_set: false, secret_last4: null, options: {}, enabled: false, ...STAMP },
    )
    renderAt('/registry/providers')
    const [local, off] = await screen.findAllByTestId('registry-row')
    expect(screen.getByRole('table', { name: 'providers' })).toHaveClass('table-stack')
    const cells = within(local!).getAllByRole('cell')
    expect(cells.map((cell) => cell.dataset.label ?? null)).toEqual(['Key', 'Kind', 'Base URL', 'API key', null, null])
    expect(cells[2]).toHaveTextContent('http://127.0.0.1:11434/v1')
    expect(cells[4]).toBeEmptyDOMElement()
    expect(within(off!).getAllByRole('cell')[4]).toHaveTextContent('disabled')
  })

  it('Show sandboxes asks for them and stays in the URL', async () => {
    renderAt('/registry/presets')
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Show sandboxes' }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/registry/presets?sandbox=include'))
    const fetched = (vi.mocked(fetch).mock.calls as [string][]).map(([url]) => url)
    await waitFor(() => expect(fetched).toContain('/api/registry/presets?sandbox=include'))
  })
})
