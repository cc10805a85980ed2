import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ErrorView } from '@/lib/thread'
import { ErrorCard } from './ErrorCard'
import { secondsLeft } from './retryAfter'

const TRACEBACK = `Traceback (most recent call last):
  File "/app/.venv/lib/python3.11/site-packages/pydantic_ai/agent/__init__.py", line 900, in iter
    yield run
  File "/app/.venv/lib/python3.11/site-packages/httpx/_client.py", line 1200, in send
    return await self._send()
  File "/home/me/project/agents/support.py", line 42, in lookup_order
    raise LookupError(order_id)
pydantic_ai.exceptions.ModelHTTPError: status_code: 429, model_name: gpt-5, body: {}
`

const rateLimited = (extra: Partial<ErrorView> = {}): ErrorView => ({
  className: 'ModelHTTPError',
  message: '429 Rate limit reached for requests',
  traceback: TRACEBACK,
  recoverable: true,
  provider: { status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests', retryAfter: 20, model: 'gpt-5' },
  at: Date.now(),
  ...extra,
})

afterEach(() => vi.useRealTimers())

describe('the error card', () => {
  it("shows a provider's refusal in its words: status, type, code, message, model, never the exception summary", () => {
    render(<ErrorCard error={rateLimited()} />)
    expect(screen.getByTestId('error-title')).toHaveTextContent('Rate limited · 429')
    const card = screen.getByTestId('error-card')
    expect(card).toHaveTextContent('requests')
    expect(card).toHaveTextContent('rate_limit_exceeded')
    expect(card).toHaveTextContent('gpt-5')
    expect(screen.getByTestId('error-message')).toHaveTextContent('Rate limit reached for requests')
    expect(screen.getByTestId('error-message')).not.toHaveTextContent('status_code')
  })

  it('counts the Retry-After down from when the error happened', () => {
    vi.useFakeTimers()
    const at = Date.now()
    render(<ErrorCard error={rateLimited({ at })} />)
    expect(screen.getByTestId('retry-after')).toHaveTextContent('wait 20 s before retrying · 20 s left')
    act(() => vi.advanceTimersByTime(5000))
    expect(screen.getByTestId('retry-after')).toHaveTextContent('15 s left')
    act(() => vi.advanceTimersByTime(16_000))
    expect(screen.getByTestId('retry-after')).toHaveTextContent('you can retry now')
    expect(secondsLeft(20, at - 60_000, at)).toBe(0)
    expect(secondsLeft(20, null, at)).toBe(0)
  })

  it('puts your frames first and folds the library frames of the traceback', async () => {
    render(<ErrorCard error={rateLimited()} />)
    await userEvent.click(screen.getByRole('button', { name: 'Traceback' }))
    expect(screen.getByTestId('own-frames')).toHaveTextContent('/home/me/project/agents/support.py:42 in lookup_order')
    expect(screen.getByTestId('own-frames')).not.toHaveTextContent('httpx')
    const folded = screen.getByTestId('folded-frames')
    expect(folded).toHaveTextContent('2 library frames (pydantic_ai, httpx)')
    expect(screen.queryAllByTestId('library-frame')).toHaveLength(0)
    await userEvent.click(folded)
    expect(screen.getAllByTestId('library-frame')).toHaveLength(2)
  })

  it('offers Retry when it can, and a plain error keeps its class', async () => {
    const retry = vi.fn()
    render(<ErrorCard error={{ className: 'LookupError', message: 'A-1001', traceback: null, recoverable: false }} onRetry={retry} />)
    expect(screen.getByTestId('error-title')).toHaveTextContent('Error: LookupError')
    expect(screen.queryByTestId('retry-after')).toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(retry).toHaveBeenCalledOnce()
  })

  it('an exhausted plan or credit is final: its own title and words, no countdown, no Retry', () => {
    const retry = vi.fn()
    const quota = rateLimited({
      recoverable: false,
      message: '429 You exceeded your current quota',
      provider: {
        status: 429,
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        message: 'You exceeded your current quota, please check your plan and billing details.',
        retryAfter: null,
        model: 'gpt-5',
        kind: 'quota_exhausted',
      },
    })
    render(<ErrorCard error={quota} onRetry={retry} />)
    expect(screen.getByTestId('error-title')).toHaveTextContent('Plan or credit exhausted · 429')
    expect(screen.getByTestId('error-title')).not.toHaveTextContent('Rate limited')
    expect(screen.getByTestId('quota-exhausted')).toHaveTextContent('plan or credit is used up')
    expect(screen.queryByTestId('retry-after')).toBeNull()
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull()
  })

  it('a spending limit offers no Retry and says what would let the call through', () => {
    const refusal: ErrorView = {
      className: 'SpendingLimitExceeded',
      message: "Spending limit reached: agent 'config:pirate-helper' may spend 1.00 USD per day",
      traceback: null,
      recoverable: false,
      provider: {
        status: null,
        type: null,
        code: null,
        message: "Spending limit reached: agent 'config:pirate-helper' may spend 1.00 USD per day",
        retryAfter: null,
        model: null,
        kind: 'spending_limit',
        limit: {
          scope: 'agent',
          scopeId: 'config:pirate-helper',
          period: 'day',
          amount: '1.00',
          currency: 'USD',
          consumed: '0.70',
          reservation: '0.45',
          headroom: '0.30',
        },
      },
    }
    render(<ErrorCard error={refusal} onRetry={vi.fn()} />)
    expect(screen.getByTestId('error-title')).toHaveTextContent('Spending limit reached')
    const why = screen.getByTestId('limit-refusal')
    expect(why).toHaveTextContent('Limit 1.00 USD per day on agent config:pirate-helper')
    expect(why).toHaveTextContent('0.30 USD left')
    expect(why).toHaveTextContent('reserved 0.45 USD, its worst case')
    expect(why).toHaveTextContent('raise the limit')
    expect(why).toHaveTextContent('max_tokens')
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull()
    expect(screen.queryByTestId('retry-after')).toBeNull()
  })
})
