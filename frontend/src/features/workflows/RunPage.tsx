// /workflows/runs/:id — one run: its input and output, and a timeline of its steps (each bar as long
// as the step took, placed where it started), each step with its message, output or error, and
// links to its conversation and its trace. Read again every second until the run finishes.
import { Link, useParams } from 'react-router'
import { PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { conversationPath } from '@/features/conversations/paths'
import { formatMoney } from '@/features/spend/money'
import { Loading } from '@/features/spend/Loading'
import { formatDuration, formatInt } from '@/lib/format'
import type { WorkflowRunDetail, WorkflowStep } from './api'
import { useWorkflowRun } from './queries'
import { RunStatus } from './RunsPanel'

const json = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value, null, 2))

/** Where a step's bar starts and how long it is, as shares of the run's span. */
export function barOf(step: Pick<WorkflowStep, 'started_at' | 'duration_ms'>, start: number, span: number): { left: number; width: number } {
  const left = span > 0 ? (Date.parse(step.started_at) - start) / span : 0
  const width = span > 0 ? (step.duration_ms ?? 0) / span : 1
  return { left: Math.min(Math.max(left, 0), 1), width: Math.min(Math.max(width, 0.01), 1) }
}

function Step({ step, start, span }: { step: WorkflowStep; start: number; span: number }) {
  const bar = barOf(step, start, span)
  const tone = step.status === 'completed' ? 'bg-success/70' : step.status === 'failed' ? 'bg-destructive/70' : 'bg-primary/60 animate-pulse'
  return (
    <li className="space-y-2 rounded-lg border bg-card p-3" data-testid="workflow-run-step" aria-label={`Step ${step.name}`}>
      <header className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-mono text-xs text-muted-foreground">{step.position + 1}</span>
        <span className="font-medium">{step.name}</span>
        <span className="font-mono text-xs text-muted-foreground">{step.agent}</span>
        <Badge variant={step.status === 'completed' ? 'success' : step.status === 'failed' ? 'destructive' : 'default'}>{step.status}</Badge>
        <span className="ml-auto font-mono text-xs text-muted-foreground">
          {formatDuration(step.duration_ms)} · {formatInt(step.total_tokens)} tokens · {formatMoney(step.cost)}
        </span>
      </header>
      <div className="relative h-2 rounded bg-muted" aria-hidden>
        <div className={`absolute h-2 rounded ${tone}`} style={{ left: `${bar.left * 100}%`, width: `${bar.width * 100}%` }} />
      </div>
      <div className="flex gap-3 text-xs">
        {step.conversation_id && (
          <Link to={conversationPath(step.agent, step.conversation_id)} className="text-primary hover:underline">
            Conversation
          </Link>
        )}
        {step.agent_run_id && (
          <Link to={`/traces/${encodeURIComponent(step.agent_run_id)}`} className="text-primary hover:underline">
            Trace
          </Link>
        )}
      </div>
      {step.message && (
        <details className="text-xs">
          <summary className="cursor-pointer text-muted-foreground">Message sent</summary>
          <pre className="mt-1 whitespace-pre-wrap rounded bg-muted/50 p-2">{step.message}</pre>
        </details>
      )}
      {step.error ? (
        <p className="text-xs text-destructive">{step.error}</p>
      ) : (
        <pre className="max-h-40 overflow-auto whitespace-pre-wrap rounded bg-muted/50 p-2 text-xs">{json(step.output)}</pre>
      )}
    </li>
  )
}

function Timeline({ run }: { run: WorkflowRunDetail }) {
  const start = Date.parse(run.started_at)
  const ends = run.steps.map((step) => Date.parse(step.started_at) + (step.duration_ms ?? 0))
  const span = Math.max(run.duration_ms ?? 0, ...ends.map((end) => end - start), 1)
  return (
    <ol className="space-y-2" aria-label="Steps">
      {run.steps.map((step) => (
        <Step key={step.position} step={step} start={start} span={span} />
      ))}
    </ol>
  )
}

export function WorkflowRunPage() {
  const id = useParams().id ?? ''
  const run = useWorkflowRun(id)
  const data = run.data
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="workflow-run-page">
      <PageHeader
        title={data ? `Run of ${data.workflow}` : 'Workflow run'}
        description={
          data && (
            <span className="flex flex-wrap items-center gap-2">
              {data.workflow_deleted ? (
                <span>{data.workflow} (deleted)</span>
              ) : (
                <Link to={`/workflows/${encodeURIComponent(data.workflow)}`} className="text-primary hover:underline">
                  {data.workflow}
                </Link>
              )}
              <span className="font-mono">v{data.workflow_version}</span>
              <RunStatus run={data} />
              <span className="font-mono text-xs">
                {formatDuration(data.duration_ms)} · {formatInt(data.total_tokens)} tokens · {formatMoney(data.cost)}
              </span>
            </span>
          )
        }
      />
      <div className="space-y-4 px-6 py-4">
        <Loading resource={run} />
        {data?.error && (
          <p role="alert" className="rounded-md border border-destructive/40 p-2 text-sm text-destructive">
            {data.error}
          </p>
        )}
        {data && (
          <div className="grid gap-3 md:grid-cols-2">
            <section aria-label="Input">
              <h2 className="mb-1 text-xs font-semibold text-muted-foreground">Input</h2>
              <pre className="max-h-40 overflow-auto whitespace-pre-wrap rounded bg-muted/50 p-2 text-xs">{json(data.input)}</pre>
            </section>
            <section aria-label="Output">
              <h2 className="mb-1 text-xs font-semibold text-muted-foreground">Output</h2>
              <pre className="max-h-40 overflow-auto whitespace-pre-wrap rounded bg-muted/50 p-2 text-xs" data-testid="workflow-output">
                {json(data.output)}
              </pre>
            </section>
          </div>
        )}
        {data && <Timeline run={data} />}
      </div>
    </div>
  )
}
