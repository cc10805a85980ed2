// A run in a list: its status badge, what started it, its cost ("unpriced" when the price is
// unknown), how long it took and when; it opens the run's detail.
import { Loader2 } from '@/components/icons'
import { Link, useSearchParams } from 'react-router'
import { formatAt, isLive, runCost, runDuration, runWhen, taskBadge, triggerText } from './format'
import { formatRelative } from '@/lib/format'
import type { TaskSummary } from './api'
import { Badge } from '@/components/ui/badge'
import { AgentName } from './Names'

export function TaskBadge({ task }: { task: Pick<TaskSummary, 'status' | 'cancel_requested'> }) {
  const { label, variant } = taskBadge(task)
  return (
    <Badge variant={variant} data-testid="task-status" data-status={task.status}>
      {task.status === 'running' && <Loader2 className="animate-spin" />}
      {label}
    </Badge>
  )
}

/** The search of the Tasks page showing run `id` (the other filters kept). */
export function useTaskHref(): (id: string) => string {
  const [params] = useSearchParams()
  return (id) => {
    const next = new URLSearchParams(params)
    next.set('task', id)
    return `/tasks?${next.toString()}`
  }
}

export function RunLine({ task, now, showAgent = false }: { task: TaskSummary; now: number; showAgent?: boolean }) {
  const href = useTaskHref()
  const when = runWhen(task)
  return (
    <li>
      <Link
        to={href(task.id)}
        className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md px-2 py-1.5 text-xs text-muted-foreground hover:bg-accent"
        data-testid="run-row"
        data-task={task.id}
        aria-label={`Run ${task.id} of ${task.agent}, ${task.status}`}
      >
        <TaskBadge task={task} />
        {showAgent && <AgentName slug={task.agent} className="max-w-full text-foreground/85" />}
        <span className="truncate">{triggerText(task)}</span>
        <span className={task.cost === null && !isLive(task.status) ? 'italic' : undefined} data-testid="run-cost">
          {runCost(task)}
        </span>
        <span data-testid="run-duration">
          {runDuration(task, now)}
        </span>
        <time dateTime={when} title={formatAt(when)} className="ml-auto">
          {formatRelative(when, now)}
        </time>
      </Link>
    </li>
  )
}
