import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { AssistantPart, MetaView } from '@/lib/thread'
import { AssistantMessage } from './AssistantMessage'

const meta = (reasoning: number): MetaView => ({
  model: 'm',
  provider: null,
  usage: { input_tokens: 10, output_tokens: 40, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: reasoning, requests: 1, tool_calls: 0 },
  cost: null,
  currency: null,
  durationMs: 5,
})
const thought = (id: string, text: string): AssistantPart => ({ type: 'reasoning', id, text, streaming: false })
const answer: AssistantPart = { type: 'text', id: 't', text: 'Done.', streaming: false }

describe('the thinking pane', () => {
  it("shows the thought's reasoning tokens when the turn has one thought and the provider counted them", () => {
    render(<AssistantMessage parts={[thought('r', 'Let me think.'), answer]} meta={meta(1234)} streaming={false} />)
    expect(screen.getByTestId('thinking')).toHaveTextContent('1,234 tokens')
    expect(screen.getByTestId('thinking')).not.toHaveTextContent('chars')
  })

  it('falls back to characters when the tokens are unknown or shared by several thoughts', () => {
    const { unmount } = render(<AssistantMessage parts={[thought('r', 'Hmm.'), answer]} meta={meta(0)} streaming={false} />)
    expect(screen.getByTestId('thinking')).toHaveTextContent('4 chars')
    unmount()
    render(<AssistantMessage parts={[thought('a', 'One.'), thought('b', 'Two!'), answer]} meta={meta(50)} streaming={false} />)
    for (const pane of screen.getAllByTestId('thinking')) expect(pane).toHaveTextContent('4 chars')
  })
})
