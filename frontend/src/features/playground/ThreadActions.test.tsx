import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import type { ThreadItem } from '@/lib/thread'
import { Breakdown } from './MessageMeta'
import { Thread } from './Thread'

const meta = { model: 'm', provider: null, usage: null, cost: null, currency: null, durationMs: 3 }
const user = (id: string, text: string): ThreadItem => ({ kind: 'user', id, text, attachments: [] })
const answer = (id: string, text: string): ThreadItem => ({ kind: 'assistant', id, parts: [{ type: 'text', id: `${id}-t`, text, streaming: false }], meta, streaming: false })
const failed = (id: string): ThreadItem => ({ kind: 'error', id, error: { className: 'X', message: 'boom', traceback: null, recoverable: true } })

describe('thread actions', () => {
  it('offers Regenerate on the last answer only, and Retry (of the last question) on every error card', async () => {
    const retry = vi.fn()
    const regenerate = vi.fn()
    const { rerender } = render(
      <Thread items={[user('u1', 'one'), answer('a1', 'first'), user('u2', 'two'), answer('a2', 'second')]} empty={null} onRetry={retry} onRegenerate={regenerate} />,
    )
    const answers = screen.getAllByTestId('assistant-message')
    expect(within(answers[0]!).queryByTestId('regenerate')).toBeNull()
    await userEvent.click(within(answers[1]!).getByTestId('regenerate'))
    expect(regenerate).toHaveBeenCalledOnce()

    rerender(
      <Thread items={[user('u1', 'one'), failed('e1'), user('u2', 'two'), failed('e2')]} empty={null} onRetry={retry} onRegenerate={regenerate} />,
    )
    const cards = screen.getAllByTestId('error-card')
    await userEvent.click(within(cards[0]!).getByRole('button', { name: 'Retry' }))
    await userEvent.click(within(cards[1]!).getByRole('button', { name: 'Retry' }))
    expect(retry).toHaveBeenCalledTimes(2)
    expect(screen.queryByTestId('regenerate')).toBeNull()
  })

  it('counts the tool calls the answer shows in its breakdown, not the ones pydantic-ai saw complete', () => {
    const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, requests: 1, tool_calls: 0 }
    render(<Breakdown meta={{ ...meta, usage }} toolCount={3} />)
    expect(screen.getByText('Tool calls').nextElementSibling).toHaveTextContent('3')
  })
})
