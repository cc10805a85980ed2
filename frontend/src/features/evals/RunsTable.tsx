// A list of eval runs, newest first: each opens its page; ticking two and pressing Compare opens
// the comparison with the older run as "before". A run still going shows its progress.
import { ArrowLeftRight } from '@/components/icons'
import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { formatDuration, formatRelative } from '@/lib/format'
import { formatMoney } from '@/features/spend/money'
import { ended, type Run } from './api'
import { passRate, runName } from './verdicts'

export const runPath = (id: string) => `/evals/runs/${encodeURIComponent(id)}`
export const comparisonPath = (before: string, after: string) => `/evals/compare?${new URLSearchParams({ before, after })}`

export function RunStatus({ run }: { run: Run }) {
  const variant = run.status === 'succeeded' ? 'success' : run.status === 'failed' ? 'destructive' : ended(run.status) ? 'warning' : 'default'
  const done = run.passed + run.failed + run.errored
  return (
    <Badge variant={variant} data-testid="run-status">
      {run.status}
      {!ended(run.status) && run.status !== 'queued' && ` ${done}/${run.case_count}`}
    </Badge>
  )
}

export function RunsTable({ runs, showDataset = false }: { runs: Run[]; showDataset?: boolean }) {
  const [picked, setPicked] = useState<string[]>([])
  const navigate = useNavigate()
  const toggle = (id: string) => setPicked((now) => (now.includes(id) ? now.filter((one) => one !== id) : [...now.slice(-1), id]))
  const compare = () => {
    // Ids are time-ordered: the smaller one is the earlier run.
    const [before = '', after = ''] = [...picked].sort()
    navigate(comparisonPath(before, after))
  }
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-2 text-xs text-muted-foreground">
        <span>Tick two runs to compare them case by case.</span>
        <Button size="sm" variant="outline" disabled={picked.length !== 2} onClick={compare} className="ml-auto">
          <ArrowLeftRight /> Compare
        </Button>
      </div>
      <Table aria-label="Eval runs">
        <TableHeader>
          <TableRow>
            <TableHead className="w-8" />
            <TableHead>Run</TableHead>
            {showDataset && <TableHead>Dataset</TableHead>}
            <TableHead>Agent</TableHead>
            <TableHead>Status</TableHead>
            <TableHead className="text-right">Passed</TableHead>
            <TableHead className="text-right">Cost</TableHead>
            <TableHead className="text-right">Time</TableHead>
            <TableHead className="text-right">Started</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {runs.map((run) => (
            <TableRow key={run.id} data-testid="eval-run-row">
              <TableCell>
                <input type="checkbox" aria-label={`Pick ${runName(run)} (${run.id}) to compare`} checked={picked.includes(run.id)} onChange={() => toggle(run.id)} />
              </TableCell>
              <TableCell className="max-w-56 truncate">
                <Link to={runPath(run.id)} className="text-primary hover:underline">
                  {runName(run)}
                </Link>
              </TableCell>
              {showDataset && (
                <TableCell className="font-mono text-xs">
                  {run.dataset} v{run.dataset_version}
                </TableCell>
              )}
              <TableCell className="max-w-48 truncate font-mono text-xs">{run.agent}</TableCell>
              <TableCell>
                <RunStatus run={run} />
              </TableCell>
              <TableCell className="text-right font-mono text-xs">
                {passRate(run)} <span className="text-muted-foreground">({run.passed}/{run.case_count})</span>
              </TableCell>
              <TableCell className="text-right font-mono text-xs">{formatMoney(run.cost)}</TableCell>
              <TableCell className="text-right font-mono text-xs">{formatDuration(run.duration_ms)}</TableCell>
              <TableCell className="text-right text-xs text-muted-foreground">{formatRelative(run.created_at)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  )
}
