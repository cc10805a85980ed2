// What a cron expression means, asked of the server as it is typed: its words and the next three
// times it fires, or the server's reason for refusing it.
import { useEffect, useState } from 'react'
import { messageOf } from '@/components/common/States'
import { tasksApi, type SchedulePreview as Preview } from './api'
import { formatAt } from './format'

type State = { kind: 'idle' } | { kind: 'checking' } | { kind: 'ok'; preview: Preview } | { kind: 'error'; message: string }

/** Milliseconds of quiet typing before the expression is checked. */
const QUIET_MS = 300

export function SchedulePreview({ cron, timezone, id }: { cron: string; timezone: string; id?: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' })
  const expression = cron.trim()
  const zone = timezone.trim() || 'UTC'
  useEffect(() => {
    if (!expression) {
      setState({ kind: 'idle' })
      return
    }
    const controller = new AbortController()
    setState((was) => (was.kind === 'idle' ? { kind: 'checking' } : was))
    const timer = window.setTimeout(() => {
      tasksApi.preview(expression, zone, controller.signal).then(
        (preview) => {
          if (!controller.signal.aborted) setState({ kind: 'ok', preview })
        },
        (error: unknown) => {
          if (!controller.signal.aborted) setState({ kind: 'error', message: messageOf(error) })
        },
      )
    }, QUIET_MS)
    return () => {
      window.clearTimeout(timer)
      controller.abort()
    }
  }, [expression, zone])

  return (
    <div id={id} className="rounded-md border bg-muted/40 px-3 py-2 text-xs" data-testid="schedule-preview" data-state={state.kind} aria-live="polite">
      {state.kind === 'idle' && <p className="text-muted-foreground">No schedule: it runs on its events, or when run by hand.</p>}
      {state.kind === 'checking' && <p className="text-muted-foreground">Checking the schedule…</p>}
      {state.kind === 'error' && (
        <p className="text-destructive" data-testid="schedule-error">
          {state.message}
        </p>
      )}
      {state.kind === 'ok' && (
        <div className="space-y-1">
          <p className="text-[13px] font-medium" data-testid="schedule-words">
            {state.preview.words}
          </p>
          <ol className="space-y-0.5 text-muted-foreground" aria-label="Next runs">
            {state.preview.next.map((at) => (
              <li key={at}>
                <time dateTime={at}>{formatAt(at, state.preview.timezone)}</time>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  )
}
