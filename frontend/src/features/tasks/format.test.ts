import type { TaskSummary } from './api'
import { eventsText, formatAt, formatSeconds, formatWhen, isLive, logLabel, runCost, runDuration, runWhen, statusBadge, taskBadge, triggersText, triggerText } from './format'

const NOW = Date.parse('2026-05-11T12:00:00Z')
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString()

describe('status badges', () => {
  it('gives each status its label and colour, and an unknown one a neutral badge', () => {
    expect(statusBadge('queued')).toEqual({ label: 'Queued', variant: 'outline' })
    expect(statusBadge('running')).toEqual({ label: 'Running', variant: 'default' })
    expect(statusBadge('succeeded')).toEqual({ label: 'Succeeded', variant: 'success' })
    expect(statusBadge('failed')).toEqual({ label: 'Failed', variant: 'destructive' })
    expect(statusBadge('cancelled')).toEqual({ label: 'Cancelled', variant: 'warning' })
    expect(statusBadge('parked')).toEqual({ label: 'Parked', variant: 'secondary' })
  })

  it('says "Cancelling" for a running task asked to stop, only while it runs', () => {
    expect(taskBadge({ status: 'running', cancel_requested: true })).toEqual({ label: 'Cancelling', variant: 'warning' })
    expect(taskBadge({ status: 'succeeded', cancel_requested: true }).label).toBe('Succeeded')
  })

  it('counts queued and running as live, the rest as final', () => {
    expect(['queued', 'running'].map(isLive)).toEqual([true, true])
    expect(['succeeded', 'failed', 'cancelled'].map(isLive)).toEqual([false, false, false])
  })
})

describe('when', () => {
  it('words a time ahead as "in …" and one behind as "… ago"', () => {
    expect(formatWhen(at(30), NOW)).toBe('in under a minute')
    expect(formatWhen(at(5 * 60), NOW)).toBe('in 5 min')
    expect(formatWhen(at(3 * 3600), NOW)).toBe('in 3 h')
    expect(formatWhen(at(2 * 86_400), NOW)).toBe('in 2 d')
    expect(formatWhen(at(-10), NOW)).toBe('now')
    expect(formatWhen(at(-10 * 60), NOW)).toBe('10 min ago')
    expect(formatWhen('not a date', NOW)).toBe('not a date')
  })

  it('reads an absolute time on the clock of the given zone, and UTC for a zone it does not know', () => {
    const madrid = formatAt('2026-05-11T07:00:00Z', 'Europe/Madrid')
    expect(madrid).toMatch(/09:00/)
    expect(madrid).toMatch(/Mon/)
    expect(formatAt('2026-05-11T07:00:00Z', 'Mars/Base')).toMatch(/07:00/)
  })
})

describe('what starts a standing agent', () => {
  const standing = { cron: '0 9 * * 1-5', schedule_words: 'At 09:00, Monday through Friday (Europe/Madrid)', timezone: 'Europe/Madrid', events: [], debounce_seconds: 0 }

  it('gives the schedule in words, then the events with their debounce', () => {
    expect(triggersText(standing)).toEqual(['At 09:00, Monday through Friday (Europe/Madrid)'])
    expect(triggersText({ ...standing, events: ['order.created', 'order.paid'], debounce_seconds: 30 })).toEqual([
      'At 09:00, Monday through Friday (Europe/Madrid)',
      'On order.created, order.paid (debounce 30 s)',
    ])
    expect(triggersText({ ...standing, cron: null, schedule_words: null, events: ['x'] })).toEqual(['On x'])
    expect(triggersText({ ...standing, cron: null, schedule_words: null })).toEqual(['Only when run by hand'])
  })

  it('falls back to the expression when the words are missing', () => {
    expect(triggersText({ ...standing, schedule_words: null })).toEqual(['0 9 * * 1-5 (Europe/Madrid)'])
  })

  it('words a debounce in the unit that reads best', () => {
    expect([0, 90, 600, 5400, 9000, 172_800].map(formatSeconds)).toEqual(['0 s', '90 s', '10 min', '90 min', '2.5 h', '2 d'])
    expect(eventsText({ events: [], debounce_seconds: 60 })).toBeNull()
  })
})

describe('a run', () => {
  const run: Pick<TaskSummary, 'status' | 'cost' | 'duration_ms' | 'started_at' | 'queued_at' | 'finished_at'> = {
    status: 'succeeded', cost: '0.0123', duration_ms: 1830, started_at: at(-5), queued_at: at(-6), finished_at: at(-3),
  }

  it('shows an unknown price as "unpriced", never $0, and no cost before it is final', () => {
    expect(runCost(run)).toBe('$0.0123')
    expect(runCost({ ...run, cost: null })).toBe('unpriced')
    expect(runCost({ ...run, cost: '0' })).toBe('$0.00')
    expect(runCost({ status: 'running', cost: null })).toBe('—')
  })

  it('counts a running run up from its start', () => {
    expect(runDuration(run)).toBe('1.83 s')
    expect(runDuration({ ...run, status: 'running', duration_ms: null }, NOW)).toBe('5.00 s')
    expect(runDuration({ ...run, status: 'queued', duration_ms: null, started_at: null })).toBe('—')
  })

  it('is dated by when it finished, started or was queued', () => {
    expect(runWhen(run)).toBe(run.finished_at)
    expect(runWhen({ ...run, finished_at: null })).toBe(run.started_at)
    expect(runWhen({ ...run, finished_at: null, started_at: null })).toBe(run.queued_at)
  })

  it('says what started it', () => {
    expect(triggerText({ trigger: 'schedule', event: null, fires: 1 })).toBe('Schedule')
    expect(triggerText({ trigger: 'manual', event: null, fires: 1 })).toBe('Run now')
    expect(triggerText({ trigger: 'event', event: 'order.created', fires: 1 })).toBe('Event order.created')
    expect(triggerText({ trigger: 'event', event: 'order.created', fires: 3 })).toBe('Event order.created (3 firings)')
  })

  it('labels its log steps', () => {
    expect(['model_response', 'tool_call', 'finished', 'something_new'].map(logLabel)).toEqual(['Model', 'Tool call', 'Finished', 'something new'])
  })
})
