// The playground's Trace button (MessageMeta) against a fake server: the turn's root is found by
// its assistant message, its tree opens in a sheet; a turn with no trace says so.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import { MessageMeta } from '@/features/playground/MessageMeta'
import { resetResources } from '@/lib/resource'
import type { MetaView } from '@/lib/thread'
import type { TraceRoot } from './api'
import { delegation, rootOf } from './sample'

const META: MetaView = { model: 'test-model', provider: 'function', usage: null, cost: null, currency: 'USD', durationMs: 212 }

let found: TraceRoot[]
let lookups: string[]

beforeEach(() => {
  resetResources()
  found = [rootOf()]
  lookups = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const [path = '', qs = ''] = url.split('?')
      if (path === '/api/traces') {
        lookups.push(qs)
        return Response.json({ roots: found, next_before: null })
      }
      if (path === '/api/traces/run-a') return Response.json({ root: delegation() })
      return Response.json({ error: { code: 'not_found', message: 'Not found.' } }, { status: 404 })
    }),
  )
})

afterEach(() => vi.unstubAllGlobals())

function renderMeta(props: Partial<Parameters<typeof MessageMeta>[0]> = {}) {
  return render(
    <MemoryRouter>
      <MessageMeta meta={META} streaming={false} messageId="msg-1" {...props} />
    </MemoryRouter>,
  )
}

describe('the Trace button', () => {
  it('is there once the answer is in, not while it streams or without a stored message', () => {
    const { rerender } = renderMeta({ streaming: true })
    expect(screen.queryByRole('button', { name: 'Trace of this turn' })).not.toBeInTheDocument()
    rerender(
      <MemoryRouter>
        <MessageMeta meta={META} streaming={false} />
      </MemoryRouter>,
    )
    expect(screen.queryByRole('button', { name: 'Trace of this turn' })).not.toBeInTheDocument()
    rerender(
      <MemoryRouter>
        <MessageMeta meta={META} streaming={false} messageId="msg-1" />
      </MemoryRouter>,
    )
    expect(screen.getByRole('button', { name: 'Trace of this turn' })).toBeInTheDocument()
    expect(fetch).not.toHaveBeenCalled()
  })

  it('opens the turn’s tree, found by its assistant message', async () => {
    renderMeta()
    await userEvent.click(screen.getByRole('button', { name: 'Trace of this turn' }))
    const sheet = await screen.findByTestId('trace-sheet')
    await within(sheet).findByTestId('trace-view')
    expect(new URLSearchParams(lookups[0])).toEqual(new URLSearchParams({ message_id: 'msg-1', limit: '1' }))
    expect(within(sheet).getAllByTestId('trace-node').filter((node) => node.dataset.kind === 'run').map((node) => node.dataset.depth)).toEqual(['0', '1', '2'])
    expect(screen.getByRole('link', { name: 'Open in Traces' })).toHaveAttribute('href', '/traces/run-a')
    // Selecting in the sheet works as on the page.
    await userEvent.click(within(sheet).getByRole('button', { name: 'Tool call research' }))
    expect(within(sheet).getByTestId('node-detail')).toHaveAttribute('data-kind', 'tool')
    await userEvent.click(screen.getByRole('button', { name: 'Close' }))
    expect(screen.queryByTestId('trace-sheet')).not.toBeInTheDocument()
  })

  it('says why a turn has no trace and which setting changes it, after looking again', async () => {
    found = []
    renderMeta()
    await userEvent.click(screen.getByRole('button', { name: 'Trace of this turn' }))
    expect(await screen.findByText('No trace recorded for this turn', undefined, { timeout: 4000 })).toBeInTheDocument()
    const why = screen.getByTestId('no-trace-why')
    expect(why).toHaveTextContent("answered before Synapse recorded every turn")
    expect(why).toHaveTextContent("metadata={'synapse.debug': False}")
    expect(why).not.toHaveTextContent('debug logs are off')
    expect(lookups.length).toBeGreaterThanOrEqual(3)
    expect(screen.queryByRole('link', { name: 'Open in Traces' })).not.toBeInTheDocument()
  })

  it('finds a trace whose rows land a moment after the answer', async () => {
    found = []
    renderMeta()
    await userEvent.click(screen.getByRole('button', { name: 'Trace of this turn' }))
    await waitFor(() => expect(lookups.length).toBeGreaterThanOrEqual(1))
    found = [rootOf()]
    expect(await screen.findByTestId('trace-view', undefined, { timeout: 4000 })).toBeInTheDocument()
    expect(screen.queryByText(/No trace recorded/)).not.toBeInTheDocument()
  })
})
