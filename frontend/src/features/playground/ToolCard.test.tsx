import { render, screen, within } from '@testing-library/react'
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

  it('a call waiting for approval: a clock and the words, no duration, no spinner', async () => {
    render(<ToolCard tool={tool({ status: 'awaiting', providerStatus: 'approval', result: undefined, durationMs: null })} />)
    const card = screen.getByTestId('tool-card')
    expect(card).toHaveAttribute('data-status', 'awaiting')
    expect(within(card).getByText('Awaiting approval')).toBeInTheDocument()
    expect(screen.queryByRole('img', { name: 'Running' })).not.toBeInTheDocument()
    expect(card).not.toHaveTextContent('—')
    await userEvent.click(screen.getByRole('button', { name: /lookup_order.*Awaiting approval/ }))
    expect(screen.getByText('Waiting for approval before it runs.')).toBeInTheDocument()
    expect(screen.queryByText(/provider status/)).not.toBeInTheDocument()
  })

  it('a call run outside the agent waits for its result, then reads it supplied', () => {
    const { rerender } = render(<ToolCard tool={tool({ status: 'awaiting', providerStatus: 'external', result: undefined })} />)
    expect(screen.getByText('Awaiting result')).toBeInTheDocument()
    rerender(<ToolCard tool={tool({ status: 'success', providerStatus: 'external', result: { temp: 4 } })} />)
    expect(screen.getByRole('img', { name: 'Result supplied' })).toBeInTheDocument()
  })

  it('approved and denied read as such; a denial shows its reason', async () => {
    const { rerender } = render(<ToolCard tool={tool({ status: 'approved', providerStatus: 'approval', result: undefined })} />)
    expect(screen.getByRole('img', { name: 'Approved' })).toBeInTheDocument()
    rerender(<ToolCard tool={tool({ status: 'denied', providerStatus: 'approval', result: undefined, error: 'too risky' })} />)
    expect(screen.getByRole('img', { name: 'Denied' })).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: /lookup_order/ }))
    expect(screen.getByText('too risky')).toBeInTheDocument()
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
