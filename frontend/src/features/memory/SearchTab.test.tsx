// Searching memories as an agent would recall them: ranked results with their score and whom each
// applies to, and how the ranking was made (by similarity through the embedder, or by recency).
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { memory, renderPage, startServer, type FakeServer } from './fakeMemoryServer'

let server: FakeServer
afterEach(() => vi.unstubAllGlobals())

const MEMORIES = () => [
  memory({ id: 'm1', content: 'Invoices are paid by bank transfer.' }, 1),
  memory({ id: 'm2', content: 'Prefers invoices by email, paid monthly.', applies_to: 'user:42' }, 2),
  memory({ id: 'm3', content: 'Prefers invoices on paper.', applies_to: 'user:7' }, 3),
  memory({ id: 'm4', content: 'The hearing moved to June.' }, 4),
]

const searchForm = () => screen.getByRole('search', { name: 'Search memories' })
const searchCalls = () => server.calls.filter((call) => call.path === '/api/memories/search')

async function search(fields: { actor?: string; q: string }) {
  if (fields.actor) await userEvent.type(within(searchForm()).getByLabelText('Actor'), fields.actor)
  await userEvent.type(within(searchForm()).getByLabelText('Query'), fields.q)
  await userEvent.click(within(searchForm()).getByRole('button', { name: 'Search' }))
}

it('ranks by similarity, showing each score and whether it applies to everyone or only to the person', async () => {
  server = startServer(MEMORIES())
  renderPage('/memory?view=search&tenant=org:acme')
  expect(within(searchForm()).getByLabelText('Tenant')).toHaveValue('org:acme')
  await search({ actor: 'user:42', q: 'invoices paid monthly' })

  const results = await screen.findAllByTestId('memory-search-result')
  expect(results.map((row) => within(row).getByTestId('memory-content').textContent)).toEqual(['Prefers invoices by email, paid monthly.', 'Invoices are paid by bank transfer.'])
  expect(results.map((row) => within(row).getByTestId('memory-score').textContent)).toEqual(['score 1.000', 'score 0.667'])
  expect(results.map((row) => within(row).getByTestId('memory-axis').textContent)).toEqual(['Only to user:42', 'Applies to everyone'])
  expect(screen.getByTestId('memory-search-ranking')).toHaveTextContent('Ranked by similarity (embedder openai:text-embedding-3-small).')
  expect(searchCalls().at(-1)!.query.toString()).toBe('tenant=org%3Aacme&actor=user%3A42&q=invoices+paid+monthly')
})

it('says it ranked by recency, without scores, when no embedder is set', async () => {
  server = startServer(MEMORIES(), { embedder: null })
  renderPage('/memory?view=search&tenant=org:acme')
  await search({ q: 'invoices' })
  const results = await screen.findAllByTestId('memory-search-result')
  expect(results.map((row) => within(row).getByTestId('memory-content').textContent)).toEqual(['The hearing moved to June.', 'Invoices are paid by bank transfer.'])
  expect(results.map((row) => within(row).getByTestId('memory-score').textContent)).toEqual(['no score', 'no score'])
  expect(screen.getByTestId('memory-search-ranking')).toHaveTextContent('Ranked by recency, newest first: no embedder is set.')
})

it('asks for a tenant and a query before searching, and follows a forgotten result', async () => {
  server = startServer(MEMORIES())
  renderPage('/memory?view=search')
  await userEvent.click(within(searchForm()).getByRole('button', { name: 'Search' }))
  expect(within(searchForm()).getByLabelText('Tenant')).toHaveAccessibleDescription('Required: whose memories, as type:id.')
  expect(within(searchForm()).getByLabelText('Query')).toHaveAccessibleDescription('Type what to look for.')
  expect(searchCalls()).toHaveLength(0)

  await userEvent.type(within(searchForm()).getByLabelText('Tenant'), 'org:acme')
  await search({ q: 'hearing' })
  const [result] = await screen.findAllByTestId('memory-search-result')
  await userEvent.click(within(result!).getByRole('button', { name: 'Forget' }))
  await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Forget' }))
  expect(await screen.findByTestId('memory-search-none')).toHaveTextContent('No memory matches.')
})
