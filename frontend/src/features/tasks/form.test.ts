import { ApiError } from '@/lib/api/client'
import type { StandingAgent } from './api'
import { bodyOf, draftOf, parseEvents, placeErrors } from './form'

const STANDING: StandingAgent = {
  id: 's1', name: 'Morning digest', agent: 'demo.support', instruction: 'Summarise the night.', tenant: 'org:acme', subject: null,
  cron: '0 9 * * 1-5', timezone: 'Europe/Madrid', schedule_words: 'At 09:00, Monday through Friday (Europe/Madrid)', events: ['order.created'],
  debounce_seconds: 30, enabled: true, next_fire_at: null, last_fired_at: null, created_at: '2026-05-01T00:00:00Z', updated_at: '2026-05-01T00:00:00Z', last_runs: [],
}

describe('the standing agent form', () => {
  it('reads events comma separated, each once, blanks dropped', () => {
    expect(parseEvents(' order.created, order.paid,, order.created ,')).toEqual(['order.created', 'order.paid'])
    expect(parseEvents('')).toEqual([])
  })

  it('sends every field of a new one, leaving out an empty schedule and scopes', () => {
    const draft = { ...draftOf(null, 'demo.support', 'UTC'), name: ' Digest ', instruction: 'Go.', events: 'a, b', debounce_seconds: '15' }
    const { body, errors } = bodyOf(draft, null)
    expect(errors).toEqual({})
    expect(body).toEqual({ name: 'Digest', agent: 'demo.support', instruction: 'Go.', timezone: 'UTC', events: ['a', 'b'], debounce_seconds: 15, enabled: true })
  })

  it('refuses what is plainly wrong before asking the server', () => {
    const draft = { ...draftOf(null, '', 'UTC'), debounce_seconds: '1.5', tenant: 'acme' }
    expect(bodyOf(draft, null).errors).toEqual({
      name: 'Required.',
      agent: 'Required.',
      instruction: 'Required.',
      debounce_seconds: 'A whole number of seconds, 0 or more.',
      tenant: 'type:id, e.g. org:acme.',
    })
  })

  it('sends only what an edit changed, null to clear the schedule or a scope', () => {
    expect(bodyOf(draftOf(STANDING), STANDING).body).toEqual({})
    const draft = { ...draftOf(STANDING), cron: ' ', tenant: '', events: 'order.created, order.paid', enabled: false }
    expect(bodyOf(draft, STANDING).body).toEqual({ cron: null, tenant: null, events: ['order.created', 'order.paid'], enabled: false })
  })

  it('puts each 422 field error beside its field and the rest above the buttons', () => {
    const refused = new ApiError(422, 'invalid_request', 'cron: bad', [
      { location: 'body.cron', message: "cron: '61 * * * *' is not a valid cron expression." },
      { location: 'body.events.1', message: 'events.1: not an event name.' },
      { location: 'query', message: 'odd' },
    ])
    expect(placeErrors(refused)).toEqual({
      fields: { cron: "cron: '61 * * * *' is not a valid cron expression.", events: 'events.1: not an event name.' },
      message: 'query: odd',
    })
    expect(placeErrors(new ApiError(409, 'conflict', 'Already there.'))).toEqual({ fields: {}, message: 'Already there.' })
  })
})
