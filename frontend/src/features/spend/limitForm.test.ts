import { ApiError } from '@/lib/api/client'
import type { SpendingLimit } from '@/lib/api/spend'
import { bodyOf, draftOf, formatWindow, headroomOf, placeErrors } from './limitForm'

const limit: SpendingLimit = {
  id: '0193aaaa-0000-7000-8000-000000000001', scope: 'tenant', scope_id: 'firm:7', period: 'calendar_month', amount: '25', currency: 'EUR',
  timezone: 'Europe/Paris', enabled: true, consumed: '20.5', headroom: '4.5', window_start: '2026-02-28T23:00:00Z', window_end: '2026-03-31T22:00:00Z',
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
}

describe('the limit form', () => {
  it('sends a new limit with the server defaults left out', () => {
    const draft = { ...draftOf(null), scope_id: ' demo.support ', amount: '12.50' }
    expect(bodyOf(draft, null)).toEqual({
      body: { scope: 'agent', scope_id: 'demo.support', period: 'calendar_month', amount: '12.50', enabled: true },
      errors: {},
    })
    expect(bodyOf({ ...draft, currency: 'eur', timezone: 'Asia/Tokyo' }, null).body).toMatchObject({ currency: 'EUR', timezone: 'Asia/Tokyo' })
  })

  it('refuses what is plain without asking: no scope id, an amount that is not above 0', () => {
    expect(bodyOf(draftOf(null), null).errors).toEqual({ scope_id: 'Required.', amount: 'Required.' })
    const draft = { ...draftOf(null), scope_id: 'x' }
    expect(bodyOf({ ...draft, amount: '0.00' }, null).errors).toEqual({ amount: 'Must be more than 0.' })
    expect(bodyOf({ ...draft, amount: '1,5' }, null).errors).toEqual({ amount: 'A number such as 25 or 12.50.' })
    expect(bodyOf({ ...draft, amount: '-3' }, null).errors.amount).toBeDefined()
  })

  it('sends only what an edit changed (the same amount written otherwise is no change)', () => {
    const draft = draftOf(limit)
    expect(bodyOf(draft, limit).body).toEqual({})
    expect(bodyOf({ ...draft, amount: '25.00' }, limit).body).toEqual({})
    expect(bodyOf({ ...draft, amount: '30', enabled: false }, limit).body).toEqual({ amount: '30', enabled: false })
  })

  it("puts the server's field errors beside their fields and the rest above the form", () => {
    const error = new ApiError(422, 'invalid_request', 'timezone: bad', [
      { location: 'body.timezone', message: "'Mars/Base' is not an IANA time zone" },
      { location: 'body', message: 'Extra inputs are not permitted' },
    ])
    expect(placeErrors(error)).toEqual({ fields: { timezone: "'Mars/Base' is not an IANA time zone" }, message: 'body: Extra inputs are not permitted' })
    expect(placeErrors(new ApiError(409, 'conflict', 'A calendar_month limit for tenant firm:7 exists already'))).toEqual({
      fields: {},
      message: 'A calendar_month limit for tenant firm:7 exists already',
    })
  })
})

describe('headroom', () => {
  it('is near at 80% and over at the amount, compared exactly', () => {
    expect(headroomOf({ consumed: '20.5', amount: '25' })).toEqual({ fraction: 0.82, level: 'near' })
    expect(headroomOf({ consumed: '1', amount: '25' }).level).toBe('ok')
    expect(headroomOf({ consumed: '25.000', amount: '25' }).level).toBe('over')
    expect(headroomOf({ consumed: '0.30000000000000000001', amount: '0.3' }).level).toBe('over')
  })

  it("shows the window as the limit's own clock reads it", () => {
    const shown = formatWindow(limit.window_start, limit.window_end, 'Europe/Paris')
    expect(shown).toMatch(/Mar 1, 2026.*12:00\sAM\s–\sApr 1, 2026.*12:00\sAM/)
    expect(formatWindow(limit.window_start, limit.window_end, 'Not/AZone')).toMatch(/Feb 28, 2026.*11:00\sPM/)
  })
})
