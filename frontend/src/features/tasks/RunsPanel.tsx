// Every run, newest first, narrowed by status and paged; read again every second while one on
// screen is queued or running.
import { CircleSlash } from '@/components/icons'
import { useState } from 'react'
import { EmptyState, ErrorState } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { TASK_STATUSES } from './api'
import { isLive, statusBadge } from './format'
import { useNow, usePolling, useTaskPage } from './queries'
import { RunLine } from './RunLine'

const PAGE = 25
const FILTERS = ['', ...TASK_STATUSES] as const

export function RunsPanel({ status, onStatus }: { status: string; onStatus: (status: string) => void }) {
  // The `before` cursor of each page seen; the last is the page shown.
  const [cursors, setCursors] = useState<string[]>([])
  const before = cursors.at(-1)
  const query = new URLSearchParams({ limit: String(PAGE) })
  if (status) query.set('status', status)
  if (before) query.set('before', before)
  const page = useTaskPage(query)
  const tasks = page.data?.tasks ?? []
  usePolling(tasks.some((task) => isLive(task.status)), page.reload)
  const now = useNow()
  const choose = (next: string) => {
    setCursors([])
    onStatus(next)
  }
  return (
    <section aria-labelledby="runs-title" className="min-w-0 space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="runs-title" className="text-sm font-semibold">
          Recent runs
        </h2>
        <div className="flex flex-wrap items-center gap-0.5 rounded-md border p-0.5" role="radiogroup" aria-label="Status">
          {FILTERS.map((option) => (
            <button
              key={option || 'all'}
              type="button"
              role="radio"
              aria-checked={status === option}
              onClick={() => choose(option)}
              className="h-6 cursor-pointer rounded px-2 text-xs text-muted-foreground hover:text-foreground aria-checked:bg-accent aria-checked:text-foreground"
            >
              {option ? statusBadge(option).label : 'All'}
            </button>
          ))}
        </div>
      </div>
      {page.data === undefined && page.error !== undefined && <ErrorState error={page.error} retry={page.reload} />}
      {page.data === undefined && page.error === undefined && <Skeleton className="h-24" />}
      {page.data && tasks.length === 0 && (
        <EmptyState icon={<CircleSlash />} title={status ? `No ${status} runs` : 'No runs yet'}>
          <p>A run starts on its schedule, on an event it listens to, or with Run now.</p>
        </EmptyState>
      )}
      {tasks.length > 0 && (
        <ul className={page.loading ? 'space-y-0.5 opacity-60' : 'space-y-0.5'} aria-label="Runs" data-testid="runs">
          {tasks.map((task) => (
            <RunLine key={task.id} task={task} now={now} showAgent />
          ))}
        </ul>
      )}
      {(cursors.length > 0 || page.data?.next_before) && (
        <div className="flex justify-end gap-2">
          <Button variant="outline" size="sm" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </Button>
          <Button variant="outline" size="sm" disabled={!page.data?.next_before} onClick={() => page.data?.next_before && setCursors([...cursors, page.data.next_before])}>
            Older
          </Button>
        </div>
      )}
    </section>
  )
}
