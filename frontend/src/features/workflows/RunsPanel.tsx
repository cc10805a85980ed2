// Run a workflow with an input (JSON), and its runs, newest first, each opening its step timeline.
import { Play } from '@/components/icons'
import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { messageOf } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { formatMoney } from '@/features/spend/money'
import { formatDuration, formatInt, formatRelative } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { finished, workflowsApi, type WorkflowRun } from './api'
import { useWorkflowRuns } from './queries'

export const workflowRunPath = (id: string) => `/workflows/runs/${encodeURIComponent(id)}`

export function RunStatus({ run }: { run: Pick<WorkflowRun, 'status' | 'current_step_index' | 'step_count'> }) {
  const variant = run.status === 'completed' ? 'success' : run.status === 'failed' ? 'destructive' : 'default'
  return (
    <Badge variant={variant} data-testid="workflow-run-status">
      {run.status}
      {!finished(run.status) && ` ${Math.max(run.current_step_index + 1, 0)}/${run.step_count}`}
    </Badge>
  )
}

function RunForm({ workflowKey }: { workflowKey: string }) {
  const [input, setInput] = useState('{"message": ""}')
  const [message, setMessage] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const navigate = useNavigate()
  const run = async () => {
    let value: unknown
    try {
      value = JSON.parse(input)
    } catch {
      return setMessage('The input is JSON: a string in quotes, or an object such as {"message": "..."}.')
    }
    setBusy(true)
    setMessage(null)
    try {
      const started = await workflowsApi.run(workflowKey, value)
      invalidate('workflows:runs')
      navigate(workflowRunPath(started.id))
    } catch (error) {
      setMessage(messageOf(error))
      setBusy(false)
    }
  }
  return (
    <div className="space-y-2">
      <label className="grid gap-1 text-[13px] font-medium">
        Input
        <textarea
          value={input}
          onChange={(event) => setInput(event.target.value)}
          rows={3}
          spellCheck={false}
          className="rounded-md border bg-transparent p-2 font-mono text-xs font-normal focus-visible:outline-2 focus-visible:outline-ring"
        />
      </label>
      {message && (
        <p role="alert" className="text-xs text-destructive">
          {message}
        </p>
      )}
      <Button size="sm" onClick={run} disabled={busy}>
        <Play /> Run
      </Button>
    </div>
  )
}

export function RunsPanel({ workflowKey }: { workflowKey: string }) {
  const runs = useWorkflowRuns(workflowKey)
  const list = runs.data?.runs ?? []
  return (
    <div className="space-y-4">
      <RunForm workflowKey={workflowKey} />
      {list.length === 0 ? (
        <p className="text-sm text-muted-foreground">Not run yet.</p>
      ) : (
        <Table aria-label="Workflow runs">
          <TableHeader>
            <TableRow>
              <TableHead>Run</TableHead>
              <TableHead>Status</TableHead>
              <TableHead className="text-right">Tokens</TableHead>
              <TableHead className="text-right">Cost</TableHead>
              <TableHead className="text-right">Time</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {list.map((run) => (
              <TableRow key={run.id} data-testid="workflow-run-row">
                <TableCell>
                  <Link to={workflowRunPath(run.id)} className="text-primary hover:underline">
                    v{run.workflow_version} · {formatRelative(run.started_at)}
                  </Link>
                </TableCell>
                <TableCell>
                  <RunStatus run={run} />
                </TableCell>
                <TableCell className="text-right font-mono text-xs">{formatInt(run.total_tokens)}</TableCell>
                <TableCell className="text-right font-mono text-xs">{formatMoney(run.cost)}</TableCell>
                <TableCell className="text-right font-mono text-xs">{formatDuration(run.duration_ms)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </div>
  )
}
