// The Memory page's status banner and browse view against a fake server (fakeMemoryServer.tsx):
// a tenant's memories a page at a time, the filters, edit, forget and add.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { memory, renderPage, startServer, type FakeServer } from './fakeMemoryServer'

let server: FakeServer
afterEach(() => vi.unstubAllGlobals())

const contents = () => screen.getAllByTestId('memory-content').map((el) => el.textContent)
const rowOf = (content: string) => screen.getByText(content).closest('li')!
const listCalls = () => server.calls.filter((call) => call.method === 'GET' && call.path === '/api/memories')

const FEW = () => [
  memory({ id: 'm1', content: 'The firm bills by the quarter hour.' }, 1),
  memory({ id: 'm2', content: 'Prefers calls after 5 pm.', applies_to: 'user:42', source: 'distilled', agent_key: 'support', conversation_id: 'conv-1' }, 2),
  memory({ id: 'm3', content: 'The hearing moved to June.', subject: 'case:7', source: 'tool' }, 3),
  memory({ id: 'm4', content: 'Invoices go to the CFO.', tenant: 'org:other' }, 4),
]

describe('status banner', () => {
  it('says plainly that nothing is distilled without a distiller model, and that search ranks by recency', async () => {
    server = startServer(FEW(), { distiller_model: null, embedder: null, vector_store: 'exact' })
    renderPage()
    const status = await screen.findByTestId('memory-status')
    await waitFor(() => expect(status).toHaveTextContent('No memory is distilled until a distiller model is named (the memory_model setting).'))
    expect(within(status).getByText('memory_model').tagName).toBe('CODE')
    expect(within(status).getByTestId('memory-status-embedder')).toHaveTextContent('No embedder: search ranks by recency')
    expect(within(status).getByTestId('memory-status-store')).toHaveTextContent('Vector store exact')
    expect(within(status).getByTestId('memory-status-count')).toHaveTextContent('4 memories kept')
  })

  it('names the distiller model, the embedder and the vector store', async () => {
    server = startServer(FEW(), { vector_store: 'pgvector' })
    renderPage()
    const distiller = await screen.findByTestId('memory-status-distiller')
    expect(distiller).toHaveTextContent('Distilled by openai:gpt-4o-mini')
    expect(screen.getByTestId('memory-status-embedder')).toHaveTextContent('Embedder openai:text-embedding-3-small')
    expect(screen.getByTestId('memory-status-store')).toHaveTextContent('Vector store pgvector')
    expect(screen.queryByText(/No memory is distilled/)).not.toBeInTheDocument()
    expect(screen.queryByTestId('memory-status-embedder-problem')).not.toBeInTheDocument()
  })

  it('says why the embedder setting cannot be used', async () => {
    server = startServer(FEW(), { embedder: null, embedder_problem: "embedder 'local' cannot be used: not installed" })
    renderPage()
    const problem = await screen.findByTestId('memory-status-embedder-problem')
    expect(problem).toHaveTextContent("The embedder setting cannot be used: embedder 'local' cannot be used: not installed")
    expect(screen.getByTestId('memory-status-embedder')).toHaveTextContent('No embedder: search ranks by recency')
  })
})

describe('browse', () => {
  it("lists a tenant's memories newest first, a page at a time", async () => {
    server = startServer(Array.from({ length: 55 }, (_, i) => memory({ id: `n${i}`, content: `Fact ${i}` }, i)))
    renderPage()
    expect(screen.getByTestId('memory-browse-hint')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Show' }))
    expect(screen.getByLabelText('Tenant')).toHaveAccessibleDescription('Required: whose memories, as type:id, e.g. org:acme.')
    expect(listCalls()).toHaveLength(0)

    await userEvent.type(screen.getByLabelText('Tenant'), 'org:acme{Enter}')
    await waitFor(() => expect(screen.getAllByTestId('memory-row')).toHaveLength(50))
    expect(contents().slice(0, 2)).toEqual(['Fact 54', 'Fact 53'])
    expect(screen.getByTestId('where')).toHaveTextContent('?tenant=org%3Aacme')
    expect(listCalls()[0]!.query.toString()).toBe('tenant=org%3Aacme&limit=50')

    await userEvent.click(screen.getByRole('button', { name: 'Load more' }))
    await waitFor(() => expect(screen.getAllByTestId('memory-row')).toHaveLength(55))
    expect(contents().at(-1)).toBe('Fact 0')
    expect(listCalls().at(-1)!.query.get('cursor')).toBe('n5')
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument()
  })

  it('drops the pages after one that changed, so no memory shows twice', async () => {
    server = startServer(Array.from({ length: 55 }, (_, i) => memory({ id: `n${i}`, content: `Fact ${i}` }, i)))
    renderPage('/memory?tenant=org:acme')
    await waitFor(() => expect(screen.getAllByTestId('memory-row')).toHaveLength(50))
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }))
    await waitFor(() => expect(screen.getAllByTestId('memory-row')).toHaveLength(55))

    await userEvent.click(within(rowOf('Fact 54')).getByRole('button', { name: 'Forget' }))
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Forget' }))
    await waitFor(() => expect(screen.getAllByTestId('memory-row')).toHaveLength(50))
    expect(contents().at(-1)).toBe('Fact 4')
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }))
    await waitFor(() => expect(screen.getAllByTestId('memory-row')).toHaveLength(54))
    expect(new Set(contents()).size).toBe(54)
  })

  it('filters by subject, person and source, and shows a refused tenant beside its field', async () => {
    server = startServer(FEW())
    renderPage('/memory?tenant=org:acme')
    await waitFor(() => expect(contents()).toEqual(['The hearing moved to June.', 'Prefers calls after 5 pm.', 'The firm bills by the quarter hour.']))

    await userEvent.selectOptions(screen.getByLabelText('Subject'), 'none')
    await userEvent.click(screen.getByRole('button', { name: 'Show' }))
    await waitFor(() => expect(contents()).toEqual(['Prefers calls after 5 pm.', 'The firm bills by the quarter hour.']))
    expect(listCalls().at(-1)!.query.has('subject')).toBe(true)
    expect(listCalls().at(-1)!.query.get('subject')).toBe('')

    await userEvent.selectOptions(screen.getByLabelText('Applies to'), 'exact')
    await userEvent.type(screen.getByLabelText('Applies to label'), 'user:42')
    await userEvent.click(screen.getByRole('button', { name: 'Show' }))
    await waitFor(() => expect(contents()).toEqual(['Prefers calls after 5 pm.']))
    expect(screen.getByTestId('where')).toHaveTextContent('?tenant=org%3Aacme&subject=&applies_to=user%3A42')

    await userEvent.selectOptions(screen.getByLabelText('Source'), 'manual')
    await userEvent.click(screen.getByRole('button', { name: 'Show' }))
    expect(await screen.findByText('No memories here')).toBeInTheDocument()
    expect(listCalls().at(-1)!.query.get('source')).toBe('manual')

    await userEvent.clear(screen.getByLabelText('Tenant'))
    await userEvent.type(screen.getByLabelText('Tenant'), 'acme{Enter}')
    await waitFor(() => expect(screen.getByLabelText('Tenant')).toHaveAccessibleDescription("expected 'type:id', got 'acme'."))
  })

  it('links a distilled memory to its conversation and says where each came from', async () => {
    server = startServer(FEW())
    renderPage('/memory?tenant=org:acme')
    await screen.findAllByTestId('memory-row')
    const distilled = within(rowOf('Prefers calls after 5 pm.'))
    expect(distilled.getByRole('link', { name: 'Distilled from a conversation' })).toHaveAttribute('href', '/agents/support/c/conv-1')
    expect(distilled.getByTestId('memory-applies-to')).toHaveTextContent('Applies to user:42')
    expect(within(rowOf('The hearing moved to June.')).getByTestId('memory-source')).toHaveTextContent('Saved by a tool')
    expect(within(rowOf('The hearing moved to June.')).getByTestId('memory-subject')).toHaveTextContent('case:7')
    expect(within(rowOf('The firm bills by the quarter hour.')).getByTestId('memory-applies-to')).toHaveTextContent('Applies to everyone')
  })

  it('forgets a memory only after a confirmation', async () => {
    server = startServer(FEW())
    renderPage('/memory?tenant=org:acme')
    await screen.findAllByTestId('memory-row')
    await userEvent.click(within(rowOf('The hearing moved to June.')).getByRole('button', { name: 'Forget' }))
    const dialog = screen.getByRole('alertdialog', { name: 'Forget this memory?' })
    expect(dialog).toHaveTextContent('"The hearing moved to June." is deleted from org:acme')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(server.calls.some((call) => call.method === 'DELETE')).toBe(false)
    expect(screen.getByText('The hearing moved to June.')).toBeInTheDocument()

    await userEvent.click(within(rowOf('The hearing moved to June.')).getByRole('button', { name: 'Forget' }))
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Forget' }))
    await waitFor(() => expect(screen.queryByText('The hearing moved to June.')).not.toBeInTheDocument())
    expect(server.calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual(['/api/memories/m3'])
  })

  it('edits a memory, sending only what changed', async () => {
    server = startServer(FEW())
    renderPage('/memory?tenant=org:acme')
    await screen.findAllByTestId('memory-row')
    await userEvent.click(within(rowOf('Prefers calls after 5 pm.')).getByRole('button', { name: 'Edit' }))
    const form = screen.getByRole('form', { name: 'Edit memory' })
    expect(within(form).getByLabelText('Tenant')).toBeDisabled()
    await userEvent.clear(within(form).getByLabelText('Content'))
    await userEvent.type(within(form).getByLabelText('Content'), 'Prefers calls after 6 pm.')
    await userEvent.clear(within(form).getByLabelText('Applies to'))
    await userEvent.type(within(form).getByLabelText('Subject'), 'case:7')
    await userEvent.click(within(form).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Edit memory' })).not.toBeInTheDocument())
    expect(server.calls.filter((call) => call.method === 'PATCH')).toMatchObject([
      { path: '/api/memories/m2', body: { content: 'Prefers calls after 6 pm.', subject: 'case:7', applies_to: null } },
    ])
    await waitFor(() => expect(within(rowOf('Prefers calls after 6 pm.')).getByTestId('memory-applies-to')).toHaveTextContent('Applies to everyone'))
  })

  it('adds a memory by hand, naming the field the server refused', async () => {
    server = startServer(FEW())
    renderPage('/memory?tenant=org:acme')
    await screen.findAllByTestId('memory-row')
    await userEvent.click(screen.getByRole('button', { name: 'New memory' }))
    const form = screen.getByRole('form', { name: 'New memory' })
    expect(within(form).getByLabelText('Tenant')).toHaveValue('org:acme')
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }))
    expect(within(form).getByLabelText('Content')).toHaveAccessibleDescription('Write what to remember.')

    await userEvent.type(within(form).getByLabelText('Content'), 'The office closes on Fridays.')
    await userEvent.type(within(form).getByLabelText('Applies to'), 'maria')
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }))
    await waitFor(() => expect(within(form).getByLabelText('Applies to')).toHaveAccessibleDescription("expected 'type:id', got 'maria'."))
    expect(within(form).getByLabelText('Applies to')).toHaveAttribute('aria-invalid', 'true')

    await userEvent.clear(within(form).getByLabelText('Applies to'))
    await userEvent.type(within(form).getByLabelText('Created by'), 'user:7')
    await userEvent.click(within(form).getByRole('button', { name: 'Add' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New memory' })).not.toBeInTheDocument())
    expect(server.calls.filter((call) => call.method === 'POST').at(-1)!.body).toEqual({ tenant: 'org:acme', content: 'The office closes on Fridays.', created_by: 'user:7' })
    await waitFor(() => expect(contents()[0]).toBe('The office closes on Fridays.'))
    await waitFor(() => expect(screen.getByTestId('memory-status-count')).toHaveTextContent('5 memories kept'))
  })
})
