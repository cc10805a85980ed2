// One standing agent: what it runs, what starts it (a schedule in words, events with their
// debounce), its next run, whether it is paused, its last runs, and what can be done with it.
import { CalendarClock, Pause, Pencil, Play, Trash2, Zap } from '@/components/icons'
import { useState } from 'react'
import { messageOf } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { invalidate } from '@/lib/resource'
import { tasksApi, type StandingAgent } from './api'
import { formatAt, formatWhen, triggersText } from './format'
import { AgentName } from './Names'
import { RunLine } from './RunLine'

function NextRun({ standing, now }: { standing: StandingAgent; now: number }) {
  if (!standing.enabled) return <span>Paused: no run until resumed</span>
  if (!standing.next_fire_at) return <span>No scheduled run</span>
  return (
    <span>
      Next run{' '}
      <time dateTime={standing.next_fire_at} className="text-foreground">
        {formatWhen(standing.next_fire_at, now)}
      </time>{' '}
      · {formatAt(standing.next_fire_at, standing.timezone)} ({standing.timezone})
    </span>
  )
}

export function StandingCard({
  standing,
  now,
  onEdit,
  onDelete,
}: {
  standing: StandingAgent
  now: number
  onEdit: () => void
  onDelete: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  // Beside a run now the broker did not take: the task is queued and is published later.
  const [notice, setNotice] = useState<string | null>(null)
  const act = async (action: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    setNotice(null)
    try {
      await action()
      invalidate('tasks:')
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      setBusy(false)
    }
  }
  const runNow = async () => setNotice((await tasksApi.runNow(standing.id)).notice ?? null)
  const toggle = standing.enabled ? () => tasksApi.pause(standing.id) : () => tasksApi.resume(standing.id)
  return (
    <li className="min-w-0 space-y-3 rounded-lg border bg-card p-4" data-testid="standing-card" data-name={standing.name} aria-label={standing.name}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="truncate text-sm font-semibold">{standing.name}</h3>
            <Badge variant={standing.enabled ? 'success' : 'warning'} data-testid="standing-state">
              {standing.enabled ? 'Enabled' : 'Paused'}
            </Badge>
          </div>
          <p className="flex min-w-0 text-xs text-muted-foreground" data-testid="standing-agent">
            <AgentName slug={standing.agent} />
          </p>
        </div>
        <div className="flex flex-wrap gap-1">
          <Button variant="outline" size="sm" disabled={busy} onClick={() => act(runNow)}>
            <Zap /> Run now
          </Button>
          <Button variant="ghost" size="sm" disabled={busy} onClick={() => act(toggle)}>
            {standing.enabled ? <Pause /> : <Play />} {standing.enabled ? 'Pause' : 'Resume'}
          </Button>
          <Button variant="ghost" size="icon-sm" onClick={onEdit} aria-label={`Edit ${standing.name}`}>
            <Pencil />
          </Button>
          <Button variant="ghost" size="icon-sm" onClick={onDelete} aria-label={`Delete ${standing.name}`}>
            <Trash2 />
          </Button>
        </div>
      </div>
      <div className="space-y-1 text-xs text-muted-foreground">
        {triggersText(standing).map((line) => (
          <p key={line} className="flex min-w-0 items-start gap-1.5 text-[13px] text-foreground" data-testid="standing-trigger">
            <CalendarClock className="mt-0.5 size-3.5 shrink-0 text-muted-foreground" />
            <span className="min-w-0 break-words">{line}</span>
          </p>
        ))}
        <p data-testid="standing-next">
          <NextRun standing={standing} now={now} />
        </p>
        {(standing.tenant || standing.subject) && (
          <p className="truncate font-mono text-[11px]">{[standing.tenant, standing.subject].filter(Boolean).join(' · ')}</p>
        )}
      </div>
      {error && (
        <p role="alert" className="text-xs text-destructive">
          {error}
        </p>
      )}
      {notice && (
        <p role="status" className="text-xs text-warning" data-testid="run-notice">
          {notice}
        </p>
      )}
      <section aria-label={`Last runs of ${standing.name}`}>
        {standing.last_runs.length === 0 ? (
          <p className="text-xs text-muted-foreground">No runs yet.</p>
        ) : (
          <ul className="space-y-0.5">
            {standing.last_runs.map((task) => (
              <RunLine key={task.id} task={task} now={now} />
            ))}
          </ul>
        )}
      </section>
    </li>
  )
}
