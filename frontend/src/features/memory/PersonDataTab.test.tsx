// Everything stored about one person in one tenant: their memories and vector memories with the
// counts, the ledger rows that stay, deleting it all behind a confirmation, and the server's refusal
// beside the field with what was typed kept.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { LEDGER_KEPT, memory, renderPage, startServer, vectorMemory, type FakeServer } from './fakeMemoryServer'

let server: FakeServer
afterEach(() => vi.unstubAllGlobals())

const MEMORIES = () => [
  memory({ id: 'm1', content: 'Prefers calls after 5 pm.', applies_to: 'user:42', source: 'distilled', conversation_id: 'conv-1' }, 1),
  memory({ id: 'm2', content: 'Owes the March invoice.', subject: 'user:42' }, 2),
  memory({ id: 'm3', content: 'Writes in Spanish.', applies_to: 'user:42', tenant: 'org:other' }, 3),
  memory({ id: 'm4', content: 'Prefers paper invoices.', applies_to: 'user:7' }, 4),
]
const VECTORS = () => [
  vectorMemory({ id: 'v1', content: 'Pays by bank transfer.', source_type: 'fact' }, 1),
  vectorMemory({ id: 'v2', content: 'We are discussing order 41.', scope: 'conversation', conversation_id: 'conv-9' }, 2),
  vectorMemory({ id: 'v3', content: 'Lives in Lyon.', tenant: 'org:other' }, 3),
  vectorMemory({ id: 'v4', content: 'Likes tea.', person: 'user:7' }, 4),
]
const LEDGER = { 'org:acme user:42': 3, 'org:other user:42': 9 }

const dataForm = () => screen.getByRole('form', { name: 'Show everything stored about a person' })
const memoryContents = () => screen.queryAllByTestId('person-data-memory-content').map((el) => el.textContent)
const vectorContents = () => screen.queryAllByTestId('vector-memory-content').map((el) => el.textContent)
const dataCalls = () => server.calls.filter((call) => call.path.startsWith('/api/people/'))

async function showData(person: string, tenant: string) {
  renderPage('/memory?view=data')
  if (person) await userEvent.type(within(dataForm()).getByLabelText('Person'), person)
  if (tenant) await userEvent.type(within(dataForm()).getByLabelText('Tenant'), tenant)
  await userEvent.click(within(dataForm()).getByRole('button', { name: 'Show' }))
}

it("lists a person's memories and vector memories in one tenant, with the counts and the ledger rows", async () => {
  server = startServer(MEMORIES(), {}, { vectorMemories: VECTORS(), ledgerRows: LEDGER })
  await showData('user:42', 'org:acme')
  await waitFor(() => expect(memoryContents()).toEqual(['Owes the March invoice.', 'Prefers calls after 5 pm.']))
  expect(vectorContents()).toEqual(['We are discussing order 41.', 'Pays by bank transfer.'])
  expect(screen.getByRole('heading', { name: 'Stored about user:42 in org:acme' })).toBeInTheDocument()
  expect(screen.getByTestId('person-data-counts')).toHaveTextContent('2 memories, 2 vector memories; the ledger has 3 rows naming them.')
  expect(screen.getByRole('heading', { name: 'Memories (2)' })).toBeInTheDocument()
  expect(screen.getByRole('heading', { name: 'Vector memories (2)' })).toBeInTheDocument()
  expect(screen.getByTestId('person-data-ledger')).toHaveTextContent(LEDGER_KEPT)

  const conversational = screen.getByText('We are discussing order 41.').closest('li')!
  expect(within(conversational).getByTestId('vector-memory-scope')).toHaveTextContent("One conversation's")
  expect(within(conversational).getByTestId('vector-memory-conversation')).toHaveTextContent('Conversation conv-9')
  expect(within(screen.getByText('Pays by bank transfer.').closest('li')!).getByTestId('vector-memory-source')).toHaveTextContent('Fact')
  expect(screen.getByText('Prefers calls after 5 pm.').closest('li')).toHaveTextContent('Distilled')
  expect(screen.getByText('Prefers calls after 5 pm.').closest('li')).toHaveTextContent('Conversation conv-1')
  expect(dataCalls().map((call) => [call.method, call.path, call.query.toString()])).toEqual([['GET', '/api/people/user%3A42/data', 'tenant=org%3Aacme']])
})

it('asks for both the person and the tenant before asking the server', async () => {
  server = startServer(MEMORIES())
  await showData('', '')
  expect(within(dataForm()).getByLabelText('Person')).toHaveAccessibleDescription('Required: who, as type:id.')
  expect(within(dataForm()).getByLabelText('Tenant')).toHaveAccessibleDescription('Required: in which tenant, as type:id.')
  await userEvent.type(within(dataForm()).getByLabelText('Person'), 'user:42{Enter}')
  expect(within(dataForm()).getByLabelText('Person')).toHaveAccessibleDescription('As type:id, e.g. user:42')
  expect(within(dataForm()).getByLabelText('Tenant')).toHaveAccessibleDescription('Required: in which tenant, as type:id.')
  expect(dataCalls()).toHaveLength(0)
})

it('deletes everything about a person in the tenant only after a confirmation, and says the ledger rows are kept', async () => {
  server = startServer(MEMORIES(), {}, { vectorMemories: VECTORS(), ledgerRows: LEDGER })
  await showData('user:42', 'org:acme')
  await waitFor(() => expect(vectorContents()).toHaveLength(2))
  await userEvent.click(screen.getByRole('button', { name: 'Delete everything about this person' }))
  const dialog = screen.getByRole('alertdialog', { name: 'Delete everything about this person?' })
  expect(dialog).toHaveTextContent('2 memories and 2 vector memories about user:42 in org:acme are deleted; the ledger keeps its 3 rows naming them.')
  await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
  expect(server.calls.some((call) => call.method === 'DELETE')).toBe(false)

  await userEvent.click(screen.getByRole('button', { name: 'Delete everything about this person' }))
  await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete everything' }))
  const deleted = await screen.findByTestId('person-data-deleted')
  expect(deleted).toHaveTextContent('Deleted 2 memories and 2 vector memories about user:42 in org:acme; 3 ledger rows kept.')
  expect(deleted).toHaveTextContent(LEDGER_KEPT)
  const deletion = server.calls.find((call) => call.method === 'DELETE')!
  expect([deletion.path, deletion.query.toString()]).toEqual(['/api/people/user%3A42/data', 'tenant=org%3Aacme'])

  await waitFor(() => expect(screen.getByTestId('person-data-counts')).toHaveTextContent('0 memories, 0 vector memories; the ledger has 3 rows naming them.'))
  expect(screen.getByText('No memory applies to them or is about them.')).toBeInTheDocument()
  expect(screen.getByText('No vector memory is theirs.')).toBeInTheDocument()
  expect(screen.getByRole('button', { name: 'Delete everything about this person' })).toBeDisabled()
  expect(server.memories.map((m) => m.id)).toEqual(['m3', 'm4'])
  expect(server.vectorMemories.map((m) => m.id)).toEqual(['v3', 'v4'])
})

it('names a refused person beside the field and keeps what was typed', async () => {
  server = startServer(MEMORIES())
  await showData('maria', 'org:acme')
  const person = within(dataForm()).getByLabelText('Person')
  await waitFor(() => expect(person).toHaveAccessibleDescription("expected 'type:id', got 'maria'."))
  expect(person).toHaveAttribute('aria-invalid', 'true')
  expect(person).toHaveValue('maria')
  expect(within(dataForm()).getByLabelText('Tenant')).toHaveValue('org:acme')
  expect(screen.queryByRole('button', { name: 'Delete everything about this person' })).not.toBeInTheDocument()

  await userEvent.clear(person)
  await userEvent.type(person, 'user:42{Enter}')
  expect(await screen.findByTestId('person-data-counts')).toHaveTextContent('2 memories, 0 vector memories; the ledger has 0 rows naming them.')
  expect(person).not.toHaveAttribute('aria-invalid')
})

it('opens from its tab, beside the other views, and keeps it in the URL', async () => {
  server = startServer(MEMORIES())
  renderPage()
  expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['Browse', 'Search', 'A person', "Person's data", 'Vector memories'])
  await userEvent.click(screen.getByRole('tab', { name: "Person's data" }))
  expect(screen.getByTestId('where')).toHaveTextContent('?view=data')
  expect(dataForm()).toBeInTheDocument()
  await userEvent.click(screen.getByRole('tab', { name: 'Vector memories' }))
  expect(screen.getByTestId('where')).toHaveTextContent('?view=vectors')
  expect(screen.getByRole('search', { name: 'Browse vector memories' })).toBeInTheDocument()
})
