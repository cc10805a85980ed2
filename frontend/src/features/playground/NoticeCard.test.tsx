import { render, screen } from '@testing-library/react'
import { NoticeCard } from './NoticeCard'

describe('NoticeCard', () => {
  it('says a request left redacted, naming each placeholder and its entity, never the value', () => {
    render(<NoticeCard kind="redacted" message="Sent to the model redacted: «EMAIL_1» (EMAIL_ADDRESS)." />)
    const notice = screen.getByTestId('privacy-notice')
    expect(notice).toHaveTextContent('Privacy: Sent to the model redacted: «EMAIL_1» (EMAIL_ADDRESS).')
  })

  it('names a model fallback and leaves an unknown notice as it is', () => {
    render(<NoticeCard kind="fallback" message="openai:gpt-5 failed; anthropic:claude answered." />)
    expect(screen.getByTestId('notice')).toHaveTextContent('Model fallback: openai:gpt-5 failed')
  })
})
