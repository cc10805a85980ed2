// A tenant's vector memories: newest first a page at a time, filtered by person and scope, one
// forgotten behind a confirmation (in its tenant only), and the server's refusals shown inline.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { memory, renderPage, startServer, vectorMemory, type FakeServer } from './fakeMemoryServer'

let server: FakeServer
afterEach(() => vi.unstubAllGlobals())

const VECTORS = () => [
  vectorMemory({ id: 'v1', content: 'Pays by bank transfer.', source_type: 'fact' }, 1),
  vectorMemory({ id: 'v2', content: 'We are discussing order 41.', scope: 'conversation', conversation_id: 'conv-9' }, 2),
  vectorMemory({ id: 'v3', content: 'The price list of 2026.', person: null, scope: 'conversation', conversation_id: 'conv-3', source_type: 'document' }, 3),
  vectorMemory({ id: 'v4', content: 'Likes tea.', person: 'user:7', embedder: null, dimensions: null }, 4),
  vectorMemory({ id: 'v5', content: 'Lives in Lyon.', tenant: 'org:other' }, 5),
]

const filters = () => screen.getByRole('search', { name: 'Browse vector memories' })
const contents = () => screen.getAllByTestId('vector-memory-content').map((el) => el.textContent)
const rowOf = (content: string) => screen.getByText(content).closest('li')!
const listCalls = () => server.calls.filter((call) => call.method === 'GET' && call.path === '/api/vector-memories')
const show = () => userEvent.click(within(filters()).getByRole('button', { name: 'Show' }))

async function showTenant(tenant: string) {
  renderPage('/memory?view=vectors')
  await userEvent.type(within(filters()).getByLabelText('Tenant'), tenant)
  await show()
}

it("lists a tenant's vector memories newest first, a page at a time, only once a tenant is named", async () => {
  server = startServer([], {}, { vectorMemories: Array.from({ length: 53 }, (_, i) => vectorMemory({ id: `v${String(i).padStart(2, '0')}`, content: `Fact ${i}` }, i)) })
  renderPage('/memory?view=vectors')
  expect(screen.getByTestId('vector-memory-hint')).toBeInTheDocument()
  await show()
  expect(within(filters()).getByLabelText('Tenant')).toHaveAccessibleDescription('Required: whose vector memories, as type:id, e.g. org:acme.')
  expect(listCalls()).toHaveLength(0)

  await userEvent.type(within(filters()).getByLabelText('Tenant'), 'org:acme{Enter}')
  await waitFor(() => expect(screen.getAllByTestId('vector-memory-row')).toHaveLength(50))
  expect(contents().slice(0, 2)).toEqual(['Fact 52', 'Fact 51'])
  expect(listCalls()[0]!.query.toString()).toBe('tenant=org%3Aacme&limit=50')
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }))
  await waitFor(() => expect(screen.getAllByTestId('vector-memory-row')).toHaveLength(53))
  expect(contents().at(-1)).toBe('Fact 0')
  expect(listCalls().at(-1)!.query.get('cursor')).toBe('v03')
  expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument()
})

it('shows each one\'s scope, person, source type, conversation and whether it is embedded', async () => {
  server = startServer([], {}, { vectorMemories: VECTORS() })
  await showTenant('org:acme')
  await waitFor(() => expect(contents()).toEqual(['Likes tea.', 'The price list of 2026.', 'We are discussing order 41.', 'Pays by bank transfer.']))
  const document = within(rowOf('The price list of 2026.'))
  expect(document.getByTestId('vector-memory-scope')).toHaveTextContent("One conversation's")
  expect(document.getByTestId('vector-memory-person')).toHaveTextContent('No person')
  expect(document.getByTestId('vector-memory-source')).toHaveTextContent('From a document')
  expect(document.getByTestId('vector-memory-conversation')).toHaveTextContent('Conversation conv-3')
  const fact = within(rowOf('Pays by bank transfer.'))
  expect(fact.getByTestId('vector-memory-scope')).toHaveTextContent("The person's")
  expect(fact.getByTestId('vector-memory-person')).toHaveTextContent('user:42')
  expect(fact.queryByTestId('vector-memory-conversation')).not.toBeInTheDocument()
  expect(rowOf('Likes tea.')).toHaveTextContent('Not embedded')
  expect(rowOf('Pays by bank transfer.')).not.toHaveTextContent('Not embedded')
})

it('filters by person (one, or none) and by scope', async () => {
  server = startServer([], {}, { vectorMemories: VECTORS() })
  await showTenant('org:acme')
  await waitFor(() => expect(contents()).toHaveLength(4))

  await userEvent.selectOptions(within(filters()).getByLabelText('Person'), 'exact')
  await userEvent.type(within(filters()).getByLabelText('Person label'), 'user:42')
  await show()
  await waitFor(() => expect(contents()).toEqual(['We are discussing order 41.', 'Pays by bank transfer.']))
  expect(listCalls().at(-1)!.query.toString()).toBe('tenant=org%3Aacme&person=user%3A42&limit=50')

  await userEvent.selectOptions(within(filters()).getByLabelText('Scope'), 'user')
  await show()
  await waitFor(() => expect(contents()).toEqual(['Pays by bank transfer.']))
  expect(listCalls().at(-1)!.query.get('scope')).toBe('user')

  await userEvent.selectOptions(within(filters()).getByLabelText('Person'), 'none')
  await userEvent.selectOptions(within(filters()).getByLabelText('Scope'), 'conversation')
  await show()
  await waitFor(() => expect(contents()).toEqual(['The price list of 2026.']))
  expect(listCalls().at(-1)!.query.toString()).toBe('tenant=org%3Aacme&person=&scope=conversation&limit=50')

  await userEvent.selectOptions(within(filters()).getByLabelText('Scope'), 'user')
  await show()
  expect(await screen.findByText('No vector memories here')).toBeInTheDocument()
})

it('forgets one vector memory, in its tenant, only after a confirmation', async () => {
  server = startServer([memory({ id: 'm1', content: 'The firm bills by the quarter hour.' })], {}, { vectorMemories: VECTORS() })
  await showTenant('org:acme')
  await waitFor(() => expect(contents()).toHaveLength(4))
  await userEvent.click(within(rowOf('Pays by bank transfer.')).getByRole('button', { name: 'Forget' }))
  const dialog = screen.getByRole('alertdialog', { name: 'Forget this vector memory?' })
  expect(dialog).toHaveTextContent('"Pays by bank transfer." is deleted from org:acme: no recall finds it again.')
  await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
  expect(server.calls.some((call) => call.method === 'DELETE')).toBe(false)

  await userEvent.click(within(rowOf('Pays by bank transfer.')).getByRole('button', { name: 'Forget' }))
  await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Forget' }))
  await waitFor(() => expect(contents()).toEqual(['Likes tea.', 'The price list of 2026.', 'We are discussing order 41.']))
  expect(server.calls.filter((call) => call.method === 'DELETE').map((call) => [call.path, call.query.toString()])).toEqual([['/api/vector-memories/v1', 'tenant=org%3Aacme']])
  expect(server.vectorMemories.map((m) => m.id)).toEqual(['v2', 'v3', 'v4', 'v5'])
  expect(server.memories).toHaveLength(1)
})

it('says in the dialog when the vector memory is already gone', async () => {
  server = startServer([], {}, { vectorMemories: VECTORS() })
  await showTenant('org:acme')
  await waitFor(() => expect(contents()).toHaveLength(4))
  server.vectorMemories = server.vectorMemories.filter((m) => m.id !== 'v4')
  await userEvent.click(within(rowOf('Likes tea.')).getByRole('button', { name: 'Forget' }))
  const dialog = screen.getByRole('alertdialog', { name: 'Forget this vector memory?' })
  await userEvent.click(within(dialog).getByRole('button', { name: 'Forget' }))
  expect(await within(dialog).findByRole('alert')).toHaveTextContent("No vector memory with id 'v4'.")
})

it('shows a refused filter beside its field and keeps what was typed', async () => {
  server = startServer([], {}, { vectorMemories: VECTORS() })
  renderPage('/memory?view=vectors')
  await userEvent.type(within(filters()).getByLabelText('Tenant'), 'org:acme')
  await userEvent.selectOptions(within(filters()).getByLabelText('Person'), 'exact')
  await userEvent.type(within(filters()).getByLabelText('Person label'), 'maria')
  await show()
  await waitFor(() => expect(within(filters()).getByLabelText('Person')).toHaveAccessibleDescription("expected 'type:id', got 'maria'."))
  expect(within(filters()).getByLabelText('Person label')).toHaveValue('maria')
  expect(within(filters()).getByLabelText('Person label')).toHaveAttribute('aria-invalid', 'true')
  expect(within(filters()).getByLabelText('Tenant')).toHaveValue('org:acme')
  expect(screen.queryByTestId('vector-memory-row')).not.toBeInTheDocument()

  await userEvent.clear(within(filters()).getByLabelText('Tenant'))
  await userEvent.type(within(filters()).getByLabelText('Tenant'), 'acme')
  await userEvent.clear(within(filters()).getByLabelText('Person label'))
  await userEvent.type(within(filters()).getByLabelText('Person label'), 'user:42{Enter}')
  await waitFor(() => expect(within(filters()).getByLabelText('Tenant')).toHaveAccessibleDescription("expected 'type:id', got 'acme'."))
  expect(within(filters()).getByLabelText('Tenant')).toHaveValue('acme')
})
