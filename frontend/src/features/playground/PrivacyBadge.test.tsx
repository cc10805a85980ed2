import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { resetResources } from '@/lib/resource'
import { PrivacyBadge } from './PrivacyBadge'

let state: { enabled: boolean; anonymize_pii: boolean; placeholders: number }
let puts: unknown[]

beforeEach(() => {
  resetResources()
  puts = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url.endsWith('/values')) return Response.json({ values: [{ placeholder: '«EMAIL_1»', entity: 'EMAIL_ADDRESS', value: 'ada@example.com' }] })
      if (init?.method === 'PUT') {
        const body = JSON.parse(init.body as string) as { anonymize_pii: boolean }
        puts.push(body)
        state = { ...state, anonymize_pii: body.anonymize_pii }
      }
      return Response.json({ ...state, redacting: state.enabled && state.anonymize_pii })
    }),
  )
})
afterEach(() => vi.unstubAllGlobals())

describe('PrivacyBadge', () => {
  it('marks a redacted conversation and opts it out, then back in', async () => {
    state = { enabled: true, anonymize_pii: true, placeholders: 2 }
    render(<PrivacyBadge conversationId="c1" />)
    expect(await screen.findByTestId('privacy-badge')).toHaveTextContent('Redacted')
    await userEvent.click(screen.getByRole('button', { name: 'Send in clear' }))
    expect(await screen.findByText('Not redacted')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Redact again' }))
    expect(await screen.findByText('Redacted')).toBeInTheDocument()
    expect(puts).toEqual([{ anonymize_pii: false }, { anonymize_pii: true }])
  })

  it('shows the values behind the placeholders only when asked', async () => {
    state = { enabled: true, anonymize_pii: true, placeholders: 1 }
    render(<PrivacyBadge conversationId="c1" />)
    await screen.findByTestId('privacy-badge')
    expect(screen.queryByText('ada@example.com')).toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'Reveal values' }))
    expect(await screen.findByRole('table', { name: 'Redacted values' })).toHaveTextContent('«EMAIL_1»EMAIL_ADDRESSada@example.com')
    await userEvent.click(screen.getByRole('button', { name: 'Hide values' }))
    expect(screen.queryByText('ada@example.com')).toBeNull()
  })

  it('shows nothing while privacy is off', async () => {
    state = { enabled: false, anonymize_pii: true, placeholders: 0 }
    const { container } = render(<PrivacyBadge conversationId="c1" />)
    await waitFor(() => expect(vi.mocked(fetch).mock.calls.map(([url]) => String(url))).toContain('/api/conversations/c1/privacy'))
    await new Promise((done) => setTimeout(done, 20)) // the answer has been read
    expect(container).toBeEmptyDOMElement()
  })
})
