// /tasks — agents that run themselves: the standing agents (what starts each, its next run, its
// last runs, and run now, pause, resume, edit, delete), every recent run, and one run in full
// (`?task=<id>`). Loaded on its own when first opened (App.tsx), to keep the first load small.
import { CalendarClock, Plus } from '@/components/icons'
import { useState } from 'react'
import { useSearchParams } from 'react-router'
import { EmptyState, ErrorState, PageHeader } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { invalidate } from '@/lib/resource'
import { tasksApi, type StandingAgent } from './api'
import { isLive } from './format'
import { useNow, usePolling, useStanding } from './queries'
import { RunDetail } from './RunDetail'
import { RunsPanel } from './RunsPanel'
import { StandingCard } from './StandingCard'
import { StandingDialog } from './StandingDialog'

function StandingPanel({ onNew }: { onNew: () => void }) {
  const standing = useStanding()
  const [editing, setEditing] = useState<StandingAgent | null>(null)
  const [deleting, setDeleting] = useState<StandingAgent | null>(null)
  const list = standing.data?.standing_agents
  usePolling(list?.some((one) => one.last_runs.some((task) => isLive(task.status))) ?? false, standing.reload)
  const now = useNow()
  return (
    <section aria-labelledby="standing-title" className="min-w-0 space-y-3">
      <h2 id="standing-title" className="text-sm font-semibold">
        Standing agents
      </h2>
      {list === undefined && standing.error !== undefined && <ErrorState error={standing.error} retry={standing.reload} />}
      {list === undefined && standing.error === undefined && <Skeleton className="h-32" />}
      {list?.length === 0 && (
        <EmptyState icon={<CalendarClock />} title="No standing agents">
          <p>A standing agent runs an agent with an instruction on a schedule, when an event fires, or when you run it.</p>
          <Button size="sm" onClick={onNew}>
            <Plus /> New standing agent
          </Button>
        </EmptyState>
      )}
      {list && list.length > 0 && (
        <ul className="grid gap-3 lg:grid-cols-2" aria-label="Standing agents">
          {list.map((one) => (
            <StandingCard key={one.id} standing={one} now={now} onEdit={() => setEditing(one)} onDelete={() => setDeleting(one)} />
          ))}
        </ul>
      )}
      <StandingDialog open={editing !== null} standing={editing} onClose={() => setEditing(null)} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete ${deleting?.name ?? 'this standing agent'}?`}
        description="It stops running; the runs it made stay in the list."
        confirmLabel="Delete"
        onConfirm={async () => {
          await tasksApi.remove(deleting!.id)
          invalidate('tasks:')
        }}
      />
    </section>
  )
}

export default function TasksPage() {
  const [params, setParams] = useSearchParams()
  const [creating, setCreating] = useState(false)
  const taskId = params.get('task')
  const status = params.get('status') ?? ''
  const back = new URLSearchParams(params)
  back.delete('task')
  const backQuery = back.toString()
  const setStatus = (next: string) => {
    const query = new URLSearchParams(back)
    if (next) query.set('status', next)
    else query.delete('status')
    setParams(query)
  }
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="tasks-page">
      <PageHeader
        title="Tasks"
        description="Agents that run themselves: on a schedule, when an event fires, or when asked."
        actions={
          <Button size="sm" onClick={() => setCreating(true)}>
            <Plus /> New standing agent
          </Button>
        }
      />
      <div className="min-w-0 space-y-6 px-6 py-4">
        {taskId ? (
          <RunDetail key={taskId} id={taskId} back={`/tasks${backQuery ? `?${backQuery}` : ''}`} />
        ) : (
          <>
            <StandingPanel onNew={() => setCreating(true)} />
            <RunsPanel status={status} onStatus={setStatus} />
          </>
        )}
      </div>
      <StandingDialog open={creating} standing={null} onClose={() => setCreating(false)} />
    </div>
  )
}
