import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { resetResources } from '@/lib/resource'
import { decisionsOf, type Answer } from '@/lib/stream/approval'
import type { ToolView } from '@/lib/thread'
import { ApprovalCard } from './ApprovalCard'

const call = (over: Partial<ToolView> = {}): ToolView => ({
  callId: 'c1',
  name: 'delete_file',
  kind: 'function',
  status: 'awaiting',
  providerStatus: 'approval',
  args: { path: 'a.txt' },
  result: undefined,
  error: null,
  durationMs: null,
  ...over,
})

const rows = () => screen.getAllByTestId('approval-call')
const sendButton = () => screen.getByRole('button', { name: 'Send decisions' })

beforeEach(() => resetResources())
afterEach(() => vi.unstubAllGlobals())

describe('ApprovalCard', () => {
  it('approve one, deny another with a reason: both go out together, keyed by call id', async () => {
    const onSend = vi.fn<(answers: Answer[]) => void>()
    render(<ApprovalCard tools={[call(), call({ callId: 'c2', args: { path: 'b.txt' } })]} onSend={onSend} />)
    expect(within(rows()[0]!).getByText('"a.txt"')).toBeInTheDocument()
    expect(sendButton()).toBeDisabled()
    expect(screen.getByText('0 of 2 decided')).toBeInTheDocument()

    await userEvent.click(within(rows()[0]!).getByRole('button', { name: 'Approve' }))
    expect(within(rows()[0]!).getByRole('button', { name: 'Approve' })).toHaveAttribute('aria-pressed', 'true')
    expect(sendButton()).toBeDisabled()
    // The reason field shows once Deny is chosen, and only there.
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument()
    await userEvent.click(within(rows()[1]!).getByRole('button', { name: 'Deny' }))
    await userEvent.type(within(rows()[1]!).getByRole('textbox', { name: 'Reason for denying delete_file (optional)' }), '  too risky ')
    expect(screen.getByText('2 of 2 decided')).toBeInTheDocument()
    await userEvent.click(sendButton())

    expect(onSend).toHaveBeenCalledTimes(1)
    expect(JSON.stringify(decisionsOf(onSend.mock.calls[0]![0]))).toBe('{"c1":{"approved":true},"c2":{"approved":false,"reason":"too risky"}}')
  })

  it('a denial without a reason, and a change of mind, send what is chosen last', async () => {
    const onSend = vi.fn<(answers: Answer[]) => void>()
    render(<ApprovalCard tools={[call()]} onSend={onSend} />)
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }))
    await userEvent.click(screen.getByRole('button', { name: 'Deny' }))
    expect(screen.getByRole('button', { name: 'Approve' })).toHaveAttribute('aria-pressed', 'false')
    await userEvent.click(sendButton())
    expect(decisionsOf(onSend.mock.calls[0]![0])).toEqual({ c1: { approved: false } })
  })

  it('an external call takes its pasted result: JSON when it parses, else the text', async () => {
    const onSend = vi.fn<(answers: Answer[]) => void>()
    render(<ApprovalCard tools={[call({ callId: 'c3', name: 'lookup_weather', providerStatus: 'external' })]} onSend={onSend} />)
    expect(screen.queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument()
    const box = screen.getByRole('textbox', { name: 'Result of lookup_weather' })
    expect(sendButton()).toBeDisabled()
    await userEvent.click(box)
    await userEvent.paste('{"temp": 4}')
    expect(screen.getByText('Sent as JSON.')).toBeInTheDocument()
    await userEvent.click(sendButton())
    expect(decisionsOf(onSend.mock.calls[0]![0])).toEqual({ c3: { result: { temp: 4 } } })

    await userEvent.clear(box)
    await userEvent.paste('sunny')
    expect(screen.getByText('Sent as text.')).toBeInTheDocument()
    await userEvent.click(sendButton())
    expect(decisionsOf(onSend.mock.calls[1]![0])).toEqual({ c3: { result: 'sunny' } })
  })

  it('stored decisions read back, without controls', () => {
    render(
      <ApprovalCard
        onSend={vi.fn()}
        tools={[
          call({ status: 'approved' }),
          call({ callId: 'c2', status: 'denied', error: 'too risky' }),
          call({ callId: 'c4', status: 'denied', error: 'Denied.' }),
          call({ callId: 'c3', name: 'lookup_weather', status: 'success', providerStatus: 'external', result: { temp: 4 } }),
        ]}
      />,
    )
    expect(rows().map((row) => row.getAttribute('data-status'))).toEqual(['approved', 'denied', 'denied', 'success'])
    expect(within(rows()[0]!).getByText('Approved')).toBeInTheDocument()
    expect(within(rows()[1]!).getByText('Denied: too risky')).toBeInTheDocument()
    expect(within(rows()[2]!).getByText('Denied')).toBeInTheDocument()
    expect(within(rows()[3]!).getByText('Result supplied')).toBeInTheDocument()
    expect(within(rows()[3]!).getByText('4')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Approve|Deny|Send decisions/ })).not.toBeInTheDocument()
    expect(screen.getByRole('region', { name: 'Tool call decisions' })).toBeInTheDocument()
  })

  it('without onSend an awaiting call only says it waits', () => {
    render(<ApprovalCard tools={[call()]} />)
    expect(screen.getByText('Waiting for a decision.')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Approve|Deny|Send decisions/ })).not.toBeInTheDocument()
  })

  it('a stored call keyed by its row is read whole first, and answered by its tool call id', async () => {
    const fetch = vi.fn(async () =>
      Response.json({ id: 'inv1', tool_call_id: 'call_77', kind: 'function', name: 'delete_file', arguments: { path: 'the/whole/path.txt' }, result: null, truncated: false, status: 'awaiting', provider_status: 'approval', error: null, duration_ms: null, started_at: '2026-11-30T06:00:00.000Z', finished_at: null }),
    )
    vi.stubGlobal('fetch', fetch)
    const onSend = vi.fn<(answers: Answer[]) => void>()
    render(<ApprovalCard tools={[call({ callId: 'inv1', invocationId: 'inv1', truncated: true, args: '{"path": "the/wh…' })]} onSend={onSend} />)
    expect(screen.getByText('Reading the call…')).toBeInTheDocument()
    expect(await screen.findByText('"the/whole/path.txt"')).toBeInTheDocument()
    expect(fetch).toHaveBeenCalledWith('/api/tool-invocations/inv1', expect.anything())
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }))
    await userEvent.click(sendButton())
    expect(decisionsOf(onSend.mock.calls[0]![0])).toEqual({ call_77: { approved: true } })
    // The call as shown is what the thread overlays while the run resumes.
    expect(onSend.mock.calls[0]![0][0]!.tool.callId).toBe('inv1')
  })

  it('a call that cannot be read says so and cannot be sent', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Response.json({ error: { code: 'not_found', message: 'No tool invocation with id inv1.' } }, { status: 404 })))
    render(<ApprovalCard tools={[call({ callId: 'inv1', invocationId: 'inv1' })]} onSend={vi.fn()} />)
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('No tool invocation with id inv1.'))
    expect(screen.queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument()
    expect(sendButton()).toBeDisabled()
  })

  it('shows why the last decisions were refused', () => {
    render(<ApprovalCard tools={[call({ status: 'approved' })]} onSend={vi.fn()} error="These tool calls were already decided." />)
    expect(screen.getByRole('alert')).toHaveTextContent('These tool calls were already decided.')
  })
})
