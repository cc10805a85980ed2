import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ToolView } from '@/lib/thread'
import { ToolCard, ToolStack } from './ToolCard'

const tool = (over: Partial<ToolView> = {}): ToolView => ({
  callId: 'c1',
  name: 'lookup_order',
  kind: 'function',
  status: 'success',
  args: { order_id: 'A-1001' },
  result: { status: 'shipped' },
  error: null,
  durationMs: 45,
  ...over,
})

describe('ToolCard', () => {
  it('collapsed: name, status and duration only', () => {
    render(<ToolCard tool={tool()} />)
    const header = screen.getByRole('button', { name: /lookup_order/ })
    expect(header).toHaveAttribute('aria-expanded', 'false')
    expect(screen.getByRole('img', { name: 'Succeeded' })).toBeInTheDocument()
    expect(screen.getByText('45 ms')).toBeInTheDocument()
    expect(screen.queryByText('Arguments')).not.toBeInTheDocument()
  })

  it('expanded: arguments and result in the JSON viewer', async () => {
    render(<ToolCard tool={tool()} />)
    await userEvent.click(screen.getByRole('button', { name: /lookup_order/ }))
    expect(screen.getByText('Arguments')).toBeInTheDocument()
    expect(screen.getByText('"A-1001"')).toBeInTheDocument()
    expect(screen.getByText('Result')).toBeInTheDocument()
    expect(screen.getByText('"shipped"')).toBeInTheDocument()
  })

  it('error: the error replaces the result', async () => {
    render(<ToolCard tool={tool({ status: 'error', result: undefined, error: 'RuntimeError: inventory service unreachable' })} />)
    expect(screen.getByRole('img', { name: 'Failed' })).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: /lookup_order/ }))
    expect(screen.getByText('RuntimeError: inventory service unreachable')).toBeInTheDocument()
    expect(screen.queryByText('Result')).not.toBeInTheDocument()
  })

  it('pending: a spinner, no duration yet, and arguments as they stream', async () => {
    render(<ToolCard tool={tool({ status: 'pending', args: undefined, argsText: '{"order_id":"A-', result: undefined, durationMs: null })} />)
    expect(screen.getByRole('img', { name: 'Running' })).toBeInTheDocument()
    expect(screen.queryByText(/ms$/)).not.toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: /lookup_order/ }))
    expect(screen.getByText('{"order_id":"A-')).toBeInTheDocument()
    expect(screen.getByText('Waiting for the result…')).toBeInTheDocument()
  })

  it('a stored call whose payload was truncated is read whole when opened', async () => {
    const fetch = vi.fn(async () => Response.json({ id: 'inv1', kind: 'function', name: 'lookup_order', arguments: { order_id: 'A-1001' }, result: { note: 'the whole result' }, status: 'success', duration_ms: 3 }))
    vi.stubGlobal('fetch', fetch)
    render(<ToolCard tool={tool({ invocationId: 'inv1', truncated: true, result: '{"note": "the wh…' })} />)
    expect(fetch).not.toHaveBeenCalled()
    await userEvent.click(screen.getByRole('button', { name: /lookup_order/ }))
    expect(await screen.findByText('"the whole result"')).toBeInTheDocument()
    expect(fetch).toHaveBeenCalledWith('/api/tool-invocations/inv1', expect.anything())
    vi.unstubAllGlobals()
  })

  it('native tools look distinct', () => {
    render(<ToolCard tool={tool({ kind: 'native', name: 'web_search', provider: 'openai' })} />)
    expect(screen.getByTestId('tool-card')).toHaveAttribute('data-kind', 'native')
    expect(screen.getByText('openai · native')).toBeInTheDocument()
  })

  it('several calls of one step stack in a list', () => {
    render(<ToolStack tools={[tool(), tool({ callId: 'c2', name: 'create_ticket' })]} />)
    expect(screen.getByRole('list', { name: '2 tool calls' })).toBeInTheDocument()
    expect(screen.getAllByTestId('tool-card')).toHaveLength(2)
  })
})
