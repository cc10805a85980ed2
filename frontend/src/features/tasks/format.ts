// How the Tasks page words a run and a standing agent: status badges, triggers, the events a
// standing agent listens to, when its next run is (relative and absolute), costs and durations.
import { formatDuration, formatRelative } from '@/lib/format'
import { formatMoney } from '@/features/spend/money'
import type { StandingAgent, TaskSummary } from './api'

export type BadgeVariant = 'default' | 'secondary' | 'outline' | 'success' | 'warning' | 'destructive'

/** A queued or running task still changes (and is polled); the others are final. */
export function isLive(status: string): boolean {
  return status === 'queued' || status === 'running'
}

const STATUS_VARIANT: Record<string, BadgeVariant> = {
  queued: 'outline',
  running: 'default',
  succeeded: 'success',
  failed: 'destructive',
  cancelled: 'warning',
}

/** The badge of a status; an unknown one reads as it is, in the neutral style. */
export function statusBadge(status: string): { label: string; variant: BadgeVariant } {
  return { label: status.charAt(0).toUpperCase() + status.slice(1), variant: STATUS_VARIANT[status] ?? 'secondary' }
}

/** A running task asked to stop reads "Cancelling" until its worker does. */
export function taskBadge(task: Pick<TaskSummary, 'status' | 'cancel_requested'>): { label: string; variant: BadgeVariant } {
  if (task.status === 'running' && task.cancel_requested) return { label: 'Cancelling', variant: 'warning' }
  return statusBadge(task.status)
}

/** 0 → "0 s", 90 → "90 s", 600 → "10 min", 9000 → "2.5 h", 172800 → "2 d". */
export function formatSeconds(seconds: number): string {
  const trim = (n: number) => String(Math.round(n * 10) / 10)
  if (seconds < 120) return `${seconds} s`
  if (seconds < 7200) return `${trim(seconds / 60)} min`
  if (seconds < 172_800) return `${trim(seconds / 3600)} h`
  return `${trim(seconds / 86_400)} d`
}

/** "order.created, order.paid (debounce 30 s)"; null when it listens to none. */
export function eventsText(standing: Pick<StandingAgent, 'events' | 'debounce_seconds'>): string | null {
  if (!standing.events.length) return null
  const list = standing.events.join(', ')
  return standing.debounce_seconds > 0 ? `${list} (debounce ${formatSeconds(standing.debounce_seconds)})` : list
}

/** What starts a standing agent, in words: its schedule, its events, or only a hand. */
export function triggersText(standing: Pick<StandingAgent, 'cron' | 'schedule_words' | 'timezone' | 'events' | 'debounce_seconds'>): string[] {
  const lines: string[] = []
  if (standing.cron) lines.push(standing.schedule_words ?? `${standing.cron} (${standing.timezone})`)
  const events = eventsText(standing)
  if (events) lines.push(`On ${events}`)
  return lines.length ? lines : ['Only when run by hand']
}

/** "in 5 min", "in 3 h", "in 2 d" ahead of `now`; behind it, "5 min ago" and so on. */
export function formatWhen(iso: string, now = Date.now()): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const seconds = Math.round((date.getTime() - now) / 1000)
  if (seconds <= 0) return seconds > -45 ? 'now' : formatRelative(iso, now)
  if (seconds < 60) return 'in under a minute'
  if (seconds < 3600) return `in ${Math.round(seconds / 60)} min`
  if (seconds < 86_400) return `in ${Math.round(seconds / 3600)} h`
  return `in ${Math.round(seconds / 86_400)} d`
}

/** "Mon, May 12, 2026, 09:00" on the clock of `timeZone` (this browser's without one, UTC's for a zone it does not know). */
export function formatAt(iso: string, timeZone?: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  for (const zone of [timeZone, 'UTC']) {
    try {
      const options: Intl.DateTimeFormatOptions = { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
      return new Intl.DateTimeFormat(undefined, zone ? { ...options, timeZone: zone } : options).format(date)
    } catch {
      // A zone this browser does not know: UTC's clock.
    }
  }
  return iso
}

/** A run's cost once it is final ("unpriced" when the price is unknown, never $0); "—" before. */
export function runCost(task: Pick<TaskSummary, 'status' | 'cost'>, currency = 'USD'): string {
  if (isLive(task.status)) return '—'
  return formatMoney(task.cost, currency)
}

/** How long a run took; a running one counts up from its start. */
export function runDuration(task: Pick<TaskSummary, 'status' | 'duration_ms' | 'started_at'>, now = Date.now()): string {
  if (task.duration_ms !== null) return formatDuration(task.duration_ms)
  if (task.status === 'running' && task.started_at) return formatDuration(Math.max(0, now - new Date(task.started_at).getTime()))
  return '—'
}

/** When a run happened: when it finished, else when it started, else when it was queued. */
export function runWhen(task: Pick<TaskSummary, 'queued_at' | 'started_at' | 'finished_at'>): string {
  return task.finished_at ?? task.started_at ?? task.queued_at
}

/** What started a run: "Schedule", "Event order.created (3 firings)", "Run now". */
export function triggerText(task: Pick<TaskSummary, 'trigger' | 'event' | 'fires'>): string {
  if (task.trigger === 'schedule') return 'Schedule'
  if (task.trigger === 'manual') return 'Run now'
  if (task.trigger === 'event') {
    const name = task.event ? `Event ${task.event}` : 'Event'
    return task.fires > 1 ? `${name} (${task.fires} firings)` : name
  }
  return task.trigger
}

const LOG_LABEL: Record<string, string> = {
  started: 'Started',
  notice: 'Notice',
  model_response: 'Model',
  tool_call: 'Tool call',
  tool_result: 'Tool result',
  output: 'Output',
  error: 'Error',
  finished: 'Finished',
}

/** A log step's kind as a label ("tool_call" → "Tool call"). */
export function logLabel(kind: string): string {
  return LOG_LABEL[kind] ?? kind.replaceAll('_', ' ')
}
