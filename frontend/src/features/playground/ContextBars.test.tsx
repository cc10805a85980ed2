// What filled the prompt: a bar per request drawn against the model's window, its blocks' texts on
// click, and the compression marker whose summary opens on click.
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ContextBar, type RequestContext } from './ContextBars'
import { NoticeCard } from './NoticeCard'

const context: RequestContext = {
  position: 0,
  run_id: 'r1',
  model: 'gpt-5-mini',
  provider: 'openai',
  context_window: 1000,
  estimated_tokens: 250,
  input_tokens: 240,
  estimated: true,
  blocks: [
    { kind: 'rules', label: 'Rules', tokens: 50, text: 'RULES. Never quote fees.', truncated: false },
    { kind: 'history', label: 'History (verbatim)', tokens: 150, text: 'User: hello', truncated: true },
    { kind: 'message', label: 'New message', tokens: 50, text: null, truncated: false },
  ],
}

describe('context bars', () => {
  it('draws each block against the context window and says the counts are estimates', () => {
    render(<ContextBar context={context} title="Request 1" />)
    expect(screen.getByTestId('context-block-rules')).toHaveStyle({ width: '5.00%' })
    expect(screen.getByTestId('context-block-history')).toHaveStyle({ width: '15.00%' })
    expect(screen.getByTestId('context-request')).toHaveTextContent('≈250 tokens (estimated) · the provider counted 240 · window 1,000')
  })

  it("opens a block's text on click, says when it was cut, and when no text was kept", async () => {
    render(<ContextBar context={context} title="Request 1" />)
    await userEvent.click(screen.getByTestId('context-block-history'))
    const text = screen.getByTestId('context-block-text')
    expect(text).toHaveTextContent('User: hello')
    expect(text).toHaveTextContent('cut at 4,000 characters')
    await userEvent.click(screen.getByTestId('context-block-message'))
    expect(screen.getByTestId('context-block-text')).toHaveTextContent('The text is kept for turns that keep their bodies')
    await userEvent.click(screen.getByTestId('context-block-message'))
    expect(screen.queryByTestId('context-block-text')).toBeNull()
  })

  it('draws on what was sent when the window is unknown', () => {
    render(<ContextBar context={{ ...context, context_window: null }} title="Request 1" />)
    expect(screen.getByTestId('context-block-history')).toHaveStyle({ width: '60.00%' })
    expect(screen.getByTestId('context-request')).toHaveTextContent('window unknown')
  })
})

describe('compression marker', () => {
  it('shows the summary on click', async () => {
    render(<NoticeCard kind="compressed" message="The first 8 messages are sent as a summary." summary="They talked about tides." />)
    const marker = screen.getByTestId('compression-marker')
    expect(marker).toHaveTextContent('History compressed: The first 8 messages')
    expect(within(marker).queryByTestId('compression-summary')).toBeNull()
    await userEvent.click(within(marker).getByTestId('compression-summary-toggle'))
    expect(within(marker).getByTestId('compression-summary')).toHaveTextContent('They talked about tides.')
  })

  it('leaves other notices as they were', () => {
    render(<NoticeCard kind="fallback" message="Fell back from a to b." />)
    expect(screen.getByTestId('notice')).toHaveTextContent('Model fallback: Fell back from a to b.')
    expect(screen.queryByTestId('compression-summary-toggle')).toBeNull()
  })
})
