// The shell at the three widths, against a fake server and a `matchMedia` that answers for the
// width the test sets: the docked sidebar on a desktop, its icons on a tablet, the top bar and the
// drawer on a phone (opened by the menu button, closed by Esc, the backdrop and navigation).
import { act, fireEvent, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, useLocation } from 'react-router'
import { App } from '@/app/App'
import { resetResources } from '@/lib/resource'

let width = 1280
let listeners: (() => void)[] = []

function stubWidth() {
  vi.stubGlobal('matchMedia', (query: string) => {
    const min = /min-width:\s*([\d.]+)rem/.exec(query)
    return {
      matches: min ? width >= Number(min[1]) * 16 : false,
      media: query,
      addEventListener: (_: string, listener: () => void) => listeners.push(listener),
      removeEventListener: (_: string, listener: () => void) => (listeners = listeners.filter((l) => l !== listener)),
    }
  })
}

function resize(to: number) {
  width = to
  act(() => listeners.forEach((listener) => listener()))
}

function Where() {
  return <output data-testid="where">{useLocation().pathname}</output>
}

const renderAt = (path: string, at: number) => {
  width = at
  return render(
    <MemoryRouter initialEntries={[path]}>
      <App />
      <Where />
    </MemoryRouter>,
  )
}

beforeEach(() => {
  resetResources()
  listeners = []
  localStorage.clear()
  stubWidth()
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === '/api/agents') return Response.json({ agents: [], problems: [], targets: ['app'], project_root: '/p', degraded: [] })
      if (url.startsWith('/api/conversations?')) return Response.json({ conversations: [], total: 0, total_exact: true, page: 1, page_size: 25, pages: 0 })
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
})
afterEach(() => vi.unstubAllGlobals())

const drawer = () => screen.getByTestId('sidebar-drawer')

describe('Shell', () => {
  it('docks the whole sidebar on a desktop, folded when the user folded it', async () => {
    renderAt('/history', 1280)
    const sidebar = screen.getByRole('complementary', { name: 'Sidebar' })
    expect(within(sidebar).getByRole('link', { name: 'History' })).toHaveTextContent('History')
    expect(screen.queryByTestId('top-bar')).not.toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Collapse sidebar' }))
    expect(screen.getByRole('button', { name: 'Expand sidebar' })).toHaveAttribute('aria-expanded', 'false')
    expect(localStorage.getItem('synapse.sidebar')).toBe('collapsed')
    expect(drawer()).not.toHaveAttribute('open')
  })

  it('docks only the icons on a tablet; expanding opens the whole sidebar as a drawer', async () => {
    localStorage.setItem('synapse.sidebar', 'open')
    renderAt('/history', 900)
    const rail = screen.getByRole('complementary', { name: 'Sidebar' })
    expect(within(rail).getByRole('link', { name: 'History' })).toHaveTextContent('')
    await userEvent.click(screen.getByRole('button', { name: 'Expand sidebar' }))
    expect(drawer()).toHaveAttribute('open')
    expect(within(drawer()).getByRole('link', { name: 'History' })).toHaveFocus()
    expect(within(drawer()).getByText('Recent')).toBeInTheDocument()
    // Back on a desktop, the drawer is gone and the user's own choice docks again.
    resize(1280)
    expect(drawer()).not.toHaveAttribute('open')
    expect(screen.getByRole('button', { name: 'Collapse sidebar' })).toBeInTheDocument()
  })

  it('on a phone: a top bar, no docked sidebar, and a drawer that Esc, the backdrop and a link close', async () => {
    renderAt('/history', 390)
    expect(screen.queryByRole('complementary', { name: 'Sidebar' })).not.toBeInTheDocument()
    const menu = within(screen.getByTestId('top-bar')).getByRole('button', { name: 'Open sidebar' })
    expect(menu).toHaveAttribute('aria-expanded', 'false')
    expect(drawer()).not.toHaveAttribute('open')

    await userEvent.click(menu)
    expect(drawer()).toHaveAttribute('open')
    expect(menu).toHaveAttribute('aria-expanded', 'true')
    expect(within(drawer()).getByRole('link', { name: 'History' })).toHaveFocus()
    // Esc reaches a modal dialog as its `cancel` event.
    fireEvent(drawer(), new Event('cancel', { cancelable: true }))
    expect(drawer()).not.toHaveAttribute('open')
    expect(menu).toHaveFocus()

    await userEvent.click(menu)
    fireEvent.mouseDown(drawer())
    expect(drawer()).not.toHaveAttribute('open')

    await userEvent.click(menu)
    // A press inside the drawer is not one on the backdrop.
    fireEvent.mouseDown(within(drawer()).getByRole('navigation', { name: 'Workspace' }))
    expect(drawer()).toHaveAttribute('open')
    await userEvent.click(within(drawer()).getByRole('link', { name: 'Registry' }))
    expect(screen.getByTestId('where')).toHaveTextContent('/registry')
    expect(drawer()).not.toHaveAttribute('open')
    expect(menu).toHaveFocus()

    // Its own close button, and Ctrl+B both ways.
    await userEvent.click(menu)
    await userEvent.click(within(drawer()).getByRole('button', { name: 'Close sidebar' }))
    expect(drawer()).not.toHaveAttribute('open')
    await userEvent.keyboard('{Control>}b{/Control}')
    expect(drawer()).toHaveAttribute('open')
    await userEvent.keyboard('{Control>}b{/Control}')
    expect(drawer()).not.toHaveAttribute('open')
  })
})
