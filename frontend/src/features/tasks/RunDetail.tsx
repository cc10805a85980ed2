// One run in full: its status (read again every second while it is queued or running), what
// started it, its timings, tokens and cost, its error or output, its log step by step, and the
// conversation it produced.
import { AlertTriangle, Bot, Braces, CheckCircle2, ChevronLeft, FileText, Info, MessageSquare, Play, Wrench, X } from '@/components/icons'
import { useState, type ReactNode } from 'react'
import { Link } from 'react-router'
import { LongText } from '@/components/common/LongText'
import { ErrorState, messageOf } from '@/components/common/States'
import { JsonView } from '@/components/json/JsonView'
import { OutputText } from '@/components/markdown/OutputText'
import { Button, buttonVariants } from '@/components/ui/button'
import { Collapsible } from '@/components/ui/collapsible'
import { Skeleton } from '@/components/ui/skeleton'
import { conversationPath } from '@/features/conversations/paths'
import { formatInt } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { tasksApi, type TaskDetail, type TaskLogEntry } from './api'
import { formatAt, isLive, logLabel, runCost, runDuration, triggerText } from './format'
import { formatRelative } from '@/lib/format'
import { useNow, usePolling, useTask } from './queries'
import { ActorChip, AgentName } from './Names'
import { TaskBadge } from './RunLine'

const LOG_ICON: Record<string, ReactNode> = {
  started: <Play />,
  notice: <Info />,
  model_response: <Bot />,
  tool_call: <Wrench />,
  tool_result: <Braces />,
  output: <FileText />,
  error: <AlertTriangle />,
  finished: <CheckCircle2 />,
}

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="break-words text-[13px]" data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

function Moment({ iso, now }: { iso: string | null; now: number }) {
  if (!iso) return <>—</>
  return (
    <time dateTime={iso} title={formatRelative(iso, now)}>
      {formatAt(iso)}
    </time>
  )
}

function LogStep({ entry }: { entry: TaskLogEntry }) {
  const error = entry.kind === 'error'
  return (
    <li className="flex min-w-0 gap-2.5 py-2" data-testid="log-step" data-kind={entry.kind}>
      <span className={`mt-0.5 shrink-0 [&_svg]:size-3.5 ${error ? 'text-destructive' : 'text-muted-foreground'}`} aria-hidden>
        {LOG_ICON[entry.kind] ?? <Info />}
      </span>
      <div className="min-w-0 flex-1 space-y-1">
        <p className="flex flex-wrap items-baseline gap-x-3 text-xs">
          <span className="font-medium">{logLabel(entry.kind)}</span>
          <time dateTime={entry.created_at} className="text-muted-foreground">
            {formatAt(entry.created_at)}
          </time>
        </p>
        <p className={`whitespace-pre-wrap break-words text-[13px] ${error ? 'text-destructive' : ''}`} data-testid="log-message">
          <LongText text={entry.message} limit={1000} />
        </p>
        {entry.data && Object.keys(entry.data).length > 0 && (
          <Collapsible label="Data">
            <JsonView value={entry.data} />
          </Collapsible>
        )}
      </div>
    </li>
  )
}

function Output({ value }: { value: unknown }) {
  if (value === null || value === undefined) return null
  return (
    <section aria-label="Output" className="space-y-1.5">
      <h3 className="text-xs font-medium text-muted-foreground">Output</h3>
      {typeof value === 'string' ? (
        <OutputText text={value} testId="task-output" />
      ) : (
        <JsonView value={value} />
      )}
    </section>
  )
}

function Detail({ task, now }: { task: TaskDetail; now: number }) {
  const [cancelling, setCancelling] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const live = isLive(task.status)
  const cancel = async () => {
    setCancelling(true)
    setError(null)
    try {
      await tasksApi.cancel(task.id)
      invalidate('tasks:')
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      setCancelling(false)
    }
  }
  return (
    <article className="min-w-0 space-y-5" aria-label="Run" aria-busy={live} data-testid="task-detail" data-status={task.status}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <TaskBadge task={task} />
          <h2 className="flex min-w-0 text-sm font-medium">
            <AgentName slug={task.agent} />
          </h2>
        </div>
        <div className="flex flex-wrap gap-2">
          {task.conversation_id && (
            <Link to={conversationPath(task.agent, task.conversation_id)} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="task-conversation">
              <MessageSquare /> Open the conversation
            </Link>
          )}
          {live && (
            <Button variant="outline" size="sm" onClick={cancel} disabled={cancelling || task.cancel_requested}>
              <X /> {task.cancel_requested ? 'Cancelling…' : 'Cancel'}
            </Button>
          )}
        </div>
      </div>
      {error && (
        <p role="alert" className="text-xs text-destructive">
          {error}
        </p>
      )}
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3">
        <Fact label="Trigger" testId="task-trigger">
          {triggerText(task)}
        </Fact>
        <Fact label="Actor">
          <ActorChip task={task} />
        </Fact>
        <Fact label="Queued">
          <Moment iso={task.queued_at} now={now} />
        </Fact>
        <Fact label="Started">
          <Moment iso={task.started_at} now={now} />
        </Fact>
        <Fact label="Finished">
          <Moment iso={task.finished_at} now={now} />
        </Fact>
        <Fact label="Duration" testId="task-duration">
          {runDuration(task, now)}
        </Fact>
        <Fact label="Tokens" testId="task-tokens">
          {formatInt(task.input_tokens)} in · {formatInt(task.output_tokens)} out
        </Fact>
        <Fact label="Cost" testId="task-cost">
          {runCost(task)}
        </Fact>
        <Fact label="Worker">{task.worker ?? '—'}</Fact>
        {task.slot_at && (
          <Fact label="Scheduled for">
            <Moment iso={task.slot_at} now={now} />
          </Fact>
        )}
        {task.tenant && <Fact label="Tenant">{task.tenant}</Fact>}
        {task.subject && <Fact label="Subject">{task.subject}</Fact>}
      </dl>
      {task.error && (
        <p role="status" className="whitespace-pre-wrap break-words rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-[13px] text-destructive" data-testid="task-error">
          <LongText text={task.error} limit={2000} />
        </p>
      )}
      <section aria-label="Instruction" className="space-y-1.5">
        <h3 className="text-xs font-medium text-muted-foreground">Instruction</h3>
        <p className="whitespace-pre-wrap break-words text-[13px]">
          <LongText text={task.instruction} limit={2000} />
        </p>
      </section>
      {task.context && Object.keys(task.context).length > 0 && (
        <section aria-label="Event context" className="space-y-1.5">
          <h3 className="text-xs font-medium text-muted-foreground">Event context</h3>
          <JsonView value={task.context} />
        </section>
      )}
      <Output value={task.output} />
      <section aria-label="Log" className="space-y-1">
        <h3 className="text-xs font-medium text-muted-foreground">Log</h3>
        {task.logs.length === 0 ? (
          <p className="text-xs text-muted-foreground">{live ? 'Nothing logged yet.' : 'No steps were logged.'}</p>
        ) : (
          <ol className="divide-y">
            {task.logs.map((entry) => (
              <LogStep key={entry.seq} entry={entry} />
            ))}
          </ol>
        )}
      </section>
    </article>
  )
}

export function RunDetail({ id, back }: { id: string; back: string }) {
  const task = useTask(id)
  const live = task.data !== undefined && isLive(task.data.status)
  usePolling(live, task.reload)
  const now = useNow(live ? 1000 : 30_000)
  return (
    <div className="space-y-4">
      <Link to={back} className="inline-flex items-center gap-1 text-xs text-muted-foreground hover:text-foreground">
        <ChevronLeft className="size-3.5" /> All tasks
      </Link>
      {task.data ? (
        <Detail task={task.data} now={now} />
      ) : task.error !== undefined ? (
        <ErrorState error={task.error} retry={task.reload} />
      ) : (
        <Skeleton className="h-40" />
      )}
    </div>
  )
}
