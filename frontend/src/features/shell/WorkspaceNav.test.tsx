// The sidebar's areas come from GET /api/extensions: the built-in ones keep their order, labels
// and icons, and an area a plugin registers shows as a link to the page it serves.
import { render, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { resetResources } from '@/lib/resource'
import { Sidebar } from './Sidebar'
import { BUILT_IN_AREAS } from './WorkspaceNav'

const withPlugin = {
  plugins: ['notes'],
  areas: [...BUILT_IN_AREAS, { name: 'notes', path: '/notes', label: 'Notes' }],
}

function stubServer(extensions: Response | (() => Response)) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === '/api/extensions') return typeof extensions === 'function' ? extensions() : extensions
      if (url === '/api/agents') return Response.json({ agents: [], problems: [], targets: ['app'], project_root: '/p', degraded: [] })
      if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, total_exact: true, page: 1, page_size: 25, pages: 0 })
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
}

const renderSidebar = () =>
  render(
    <MemoryRouter initialEntries={['/history']}>
      <Sidebar collapsed={false} onToggle={() => {}} />
    </MemoryRouter>,
  )

const nav = () => screen.getByRole('navigation', { name: 'Workspace' })

beforeEach(() => resetResources())
afterEach(() => vi.unstubAllGlobals())

test("a plugin's area from the extensions answer appears after the built-in ones, as a link", async () => {
  stubServer(() => Response.json(withPlugin))
  renderSidebar()
  const notes = await within(nav()).findByRole('link', { name: 'Notes' })
  expect(notes).toHaveAttribute('href', '/notes')
  const labels = within(nav())
    .getAllByRole('link')
    .map((link) => link.textContent)
  expect(labels).toEqual(['Agents', 'History', 'Registry', 'Spend', 'Tasks', 'Traces', 'Rules', 'Notes'])
  expect(within(nav()).getByRole('link', { name: 'History' })).toHaveAttribute('aria-current', 'page')
  // Each built-in area keeps its own icon; the plugin's gets the plugin icon.
  const icons = within(nav())
    .getAllByRole('link')
    .map((link) => link.querySelector('svg')?.innerHTML)
  expect(new Set(icons).size).toBe(8)
})

test('the nav follows the server: an area the answer leaves out is not shown', async () => {
  stubServer(() => Response.json({ plugins: [], areas: BUILT_IN_AREAS.filter((area) => area.name !== 'tasks') }))
  renderSidebar()
  await waitFor(() => expect(within(nav()).queryByRole('link', { name: 'Tasks' })).not.toBeInTheDocument())
  expect(within(nav()).getAllByRole('link')).toHaveLength(6)
})

test('the built-in areas show while the extensions cannot be read', async () => {
  stubServer(() => Response.json({ error: { code: 'internal', message: 'down' } }, { status: 500 }))
  renderSidebar()
  expect(within(nav()).getAllByRole('link').map((link) => link.textContent)).toEqual(BUILT_IN_AREAS.map((area) => area.label))
  await waitFor(() => expect(fetch).toHaveBeenCalledWith('/api/extensions', expect.anything()))
  expect(within(nav()).getAllByRole('link')).toHaveLength(7)
})
