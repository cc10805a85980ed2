import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import type { AgentInfo } from '@/lib/api/types'
import { PlaygroundEmpty } from './PlaygroundEmpty'

const agent = (over: Partial<AgentInfo>): AgentInfo => ({ name: 'agent', label: null, suggestions: [], description: null, ...over }) as AgentInfo

describe('the empty playground', () => {
  it('offers the agent suggestions as messages to send, and names it by its label', async () => {
    const suggest = vi.fn()
    render(<PlaygroundEmpty agent={agent({ label: 'agent · weather', suggestions: ['Where is order A-1001?', 'Rate limit me'] })} onSuggest={suggest} />)
    expect(screen.getByText('Chat with agent · weather')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Rate limit me' }))
    expect(suggest).toHaveBeenCalledWith('Rate limit me')
  })

  it('shows no suggestions when the agent has none, and disables them while nothing can be sent', () => {
    const { rerender } = render(<PlaygroundEmpty agent={agent({})} onSuggest={vi.fn()} />)
    expect(screen.queryByTestId('suggestions')).toBeNull()
    rerender(<PlaygroundEmpty agent={agent({ suggestions: ['Hi'] })} />)
    expect(screen.getByRole('button', { name: 'Hi' })).toBeDisabled()
  })
})
