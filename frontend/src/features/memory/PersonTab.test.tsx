// One person's view: what applies to them (the actor URL-encoded in the path), their three-state
// sharing choice, and forgetting everything about them behind a confirmation.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { memory, renderPage, startServer, type FakeServer } from './fakeMemoryServer'

let server: FakeServer
afterEach(() => vi.unstubAllGlobals())

const MEMORIES = () => [
  memory({ id: 'm1', content: 'Prefers calls after 5 pm.', applies_to: 'user:42' }, 1),
  memory({ id: 'm2', content: 'Writes in Spanish.', applies_to: 'user:42', tenant: 'org:other' }, 2),
  memory({ id: 'm3', content: 'Prefers paper invoices.', applies_to: 'user:7' }, 3),
  memory({ id: 'm4', content: 'The firm bills by the quarter hour.' }, 4),
]

const personForm = () => screen.getByRole('form', { name: "Show a person's memories" })
const contents = () => screen.getAllByTestId('memory-content').map((el) => el.textContent)

async function showPerson(actor: string, tenant = '') {
  renderPage('/memory?view=person')
  await userEvent.type(within(personForm()).getByLabelText('Person'), actor)
  if (tenant) await userEvent.type(within(personForm()).getByLabelText('Tenant'), tenant)
  await userEvent.click(within(personForm()).getByRole('button', { name: 'Show' }))
}

it('lists everything that applies to a person, in every tenant or in one', async () => {
  server = startServer(MEMORIES())
  await showPerson('user:42')
  await waitFor(() => expect(contents()).toEqual(['Writes in Spanish.', 'Prefers calls after 5 pm.']))
  expect(screen.getByRole('heading', { name: 'What applies to user:42 in every tenant' })).toBeInTheDocument()
  expect(server.calls.some((call) => call.method === 'GET' && call.path === '/api/memories/people/user%3A42' && !call.query.has('tenant'))).toBe(true)

  await userEvent.type(within(personForm()).getByLabelText('Tenant'), 'org:acme')
  await userEvent.click(within(personForm()).getByRole('button', { name: 'Show' }))
  await waitFor(() => expect(contents()).toEqual(['Prefers calls after 5 pm.']))
  expect(server.calls.at(-1)).toMatchObject({ path: '/api/memories/people/user%3A42' })
  expect(server.calls.filter((call) => call.path === '/api/memories/people/user%3A42').at(-1)!.query.get('tenant')).toBe('org:acme')
})

it('sets the three-state sharing choice: never chose, shares, does not share', async () => {
  server = startServer(MEMORIES(), { share_memories_default: true })
  await showPerson('user:42')
  const group = await screen.findByRole('radiogroup', { name: 'Sharing choice of user:42' })
  const never = within(group).getByRole('radio', { name: 'Never chose (uses the default: shares)' })
  await waitFor(() => expect(never).toBeChecked())
  expect(screen.getByTestId('memory-sharing')).toHaveTextContent('This gates only the shared memories distilled from their conversations from now on')

  const puts = () => server.calls.filter((call) => call.method === 'PUT').map((call) => [call.path, call.body])
  await userEvent.click(within(group).getByRole('radio', { name: 'Does not share' }))
  await waitFor(() => expect(within(group).getByRole('radio', { name: 'Does not share' })).toBeChecked())
  await userEvent.click(within(group).getByRole('radio', { name: 'Shares' }))
  await waitFor(() => expect(within(group).getByRole('radio', { name: 'Shares' })).toBeChecked())
  await userEvent.click(within(group).getByRole('radio', { name: /^Never chose/ }))
  await waitFor(() => expect(within(group).getByRole('radio', { name: /^Never chose/ })).toBeChecked())
  expect(puts()).toEqual([
    ['/api/memories/people/user%3A42/sharing', { share_memories: false }],
    ['/api/memories/people/user%3A42/sharing', { share_memories: true }],
    ['/api/memories/people/user%3A42/sharing', { share_memories: null }],
  ])
})

it('says what the default is when it is not to share', async () => {
  server = startServer(MEMORIES(), { share_memories_default: false })
  await showPerson('user:7')
  expect(await screen.findByRole('radio', { name: 'Never chose (uses the default: does not share)' })).toBeChecked()
})

it('forgets everything about a person only after a confirmation', async () => {
  server = startServer(MEMORIES())
  await showPerson('user:42', 'org:acme')
  await waitFor(() => expect(contents()).toEqual(['Prefers calls after 5 pm.']))
  await userEvent.click(screen.getByRole('button', { name: 'Forget everything about this person' }))
  const dialog = screen.getByRole('alertdialog', { name: 'Forget everything about this person?' })
  expect(dialog).toHaveTextContent('Every memory that applies to user:42 in org:acme is deleted (1 memory).')
  await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
  expect(server.calls.some((call) => call.method === 'DELETE')).toBe(false)

  await userEvent.click(screen.getByRole('button', { name: 'Forget everything about this person' }))
  await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Forget everything' }))
  expect(await screen.findByTestId('memory-forgotten')).toHaveTextContent('Forgot 1 memory about user:42.')
  const deletion = server.calls.find((call) => call.method === 'DELETE')!
  expect([deletion.path, deletion.query.toString()]).toEqual(['/api/memories/people/user%3A42', 'tenant=org%3Aacme'])
  expect(await screen.findByText('Nothing applies to user:42 in org:acme.')).toBeInTheDocument()
  expect(server.memories.map((m) => m.id)).toEqual(['m2', 'm3', 'm4'])
})

it("names a refused person beside the field", async () => {
  server = startServer(MEMORIES())
  await showPerson('maria')
  await waitFor(() => expect(within(personForm()).getByLabelText('Person')).toHaveAccessibleDescription("expected 'type:id', got 'maria'."))
})
