// The cost beside the tokens, on each answer and in the header's conversation totals: the digits
// of a fraction of a cent, and "unpriced" (never $0 or a dash) when the price is unknown.
import { render, screen, within } from '@testing-library/react'
import type { MetaView } from '@/lib/thread'
import { Breakdown, MessageMeta } from './MessageMeta'
import { PlaygroundHeader } from './PlaygroundHeader'

const meta = (cost: number | null): MetaView => ({
  model: 'gpt-5-mini', provider: 'openai', usage: { input_tokens: 1200, output_tokens: 80 }, cost, currency: 'USD', durationMs: 900,
})

describe('cost beside tokens', () => {
  it('shows an answer that cost a fraction of a cent with its digits', () => {
    render(<MessageMeta meta={meta(0.000421875)} streaming={false} />)
    expect(screen.getByTestId('message-cost')).toHaveTextContent('$0.0004219')
    expect(screen.getByTestId('message-meta')).toHaveTextContent('1,200')
  })

  it('says unpriced when the price is unknown, in the line and in its breakdown', () => {
    render(<MessageMeta meta={meta(null)} streaming={false} />)
    expect(screen.getByTestId('message-cost')).toHaveTextContent(/^unpriced$/)
    render(<Breakdown meta={meta(null)} />)
    expect(screen.getByText('Cost').nextElementSibling).toHaveTextContent(/^unpriced$/)
  })

  it('gives every digit in the breakdown', () => {
    render(<Breakdown meta={meta(0.000421875)} />)
    expect(screen.getByText('Cost').nextElementSibling).toHaveTextContent('$0.000421875')
  })

  it("shows the conversation's cost beside its tokens in the header", () => {
    const header = (cost: number | null) => (
      <PlaygroundHeader
        agent={undefined}
        title="Orders"
        totals={{ input_tokens: 24, output_tokens: 10, cost, duration_ms: 1600, tool_calls: 0 }}
        hasConversation
        infoOpen={false}
        onNew={() => undefined}
        onClear={() => undefined}
        onToggleInfo={() => undefined}
      />
    )
    const { rerender } = render(header(null))
    const totals = screen.getByTestId('conversation-totals')
    expect(within(totals).getByTestId('conversation-cost')).toHaveTextContent(/^unpriced$/)
    rerender(header(0.1 + 0.2))
    expect(within(totals).getByTestId('conversation-cost')).toHaveTextContent(/^\$0\.30$/)
  })

  it('counts tool calls in the header in the singular for one', () => {
    const header = (toolCalls: number) => (
      <PlaygroundHeader
        agent={undefined}
        title="Orders"
        totals={{ input_tokens: 24, output_tokens: 10, cost: null, duration_ms: 1600, tool_calls: toolCalls }}
        hasConversation
        infoOpen={false}
        onNew={() => undefined}
        onClear={() => undefined}
        onToggleInfo={() => undefined}
      />
    )
    const { rerender } = render(header(1))
    const totals = screen.getByTestId('conversation-totals')
    expect(totals).toHaveTextContent(/unpriced1 tool$/)
    rerender(header(2))
    expect(totals).toHaveTextContent(/unpriced2 tools$/)
  })
})
