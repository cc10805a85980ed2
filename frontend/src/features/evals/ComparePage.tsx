// /evals/compare?before=&after= — two runs case by case: what passed before and fails now first,
// then the rest; each row's verdicts, cost and time deltas, and both results side by side when
// opened.
import { useSearchParams } from 'react-router'
import { Link } from 'react-router'
import { PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Loading } from '@/features/spend/Loading'
import { formatMoney } from '@/features/spend/money'
import { cn } from '@/lib/cn'
import type { CaseComparison, CaseResult, Run } from './api'
import { useComparison } from './queries'
import { CaseCard } from './RunPage'
import { runPath } from './RunsTable'
import { CHANGES, passRate, runName, signedMs, tally, verdictOf } from './verdicts'

function Side({ run, which }: { run: Run; which: string }) {
  return (
    <div className="rounded-lg border p-3 text-sm" data-testid={`compare-${which}`}>
      <p className="text-xs uppercase tracking-wide text-muted-foreground">{which}</p>
      <Link to={runPath(run.id)} className="font-medium text-primary hover:underline">
        {runName(run)}
      </Link>
      <p className="font-mono text-xs text-muted-foreground">
        {run.agent}
        {run.agent_version ? ` v${run.agent_version}` : ''}
        {run.preset ? ` · preset ${run.preset}` : run.model ? ` · ${run.model}` : ''} · {run.dataset} v{run.dataset_version}
      </p>
      <p className="mt-1 font-mono text-xs">
        {passRate(run)} passed · {formatMoney(run.cost)} · {run.duration_ms} ms
      </p>
    </div>
  )
}

function Verdict({ result }: { result: CaseResult | null }) {
  if (!result) return <span className="text-muted-foreground">—</span>
  const verdict = verdictOf(result)
  return <Badge variant={verdict === 'pass' ? 'success' : verdict === 'fail' ? 'destructive' : 'warning'}>{verdict}</Badge>
}

function signedMoney(delta: string | null): string {
  if (delta === null) return '—'
  return delta.startsWith('-') ? `−${formatMoney(delta.slice(1))}` : `+${formatMoney(delta)}`
}

function Row({ entry, agents }: { entry: CaseComparison; agents: [string, string] }) {
  const change = CHANGES[entry.change] ?? { label: entry.change, tone: 'same' }
  return (
    <details className="rounded-lg border" data-testid="compare-case" data-change={entry.change}>
      <summary className="flex cursor-pointer flex-wrap items-center gap-3 px-3 py-2 text-sm">
        <span className="min-w-40 flex-1 font-medium">{entry.case}</span>
        <span className={cn('text-xs', change.tone === 'bad' && 'font-semibold text-destructive', change.tone === 'good' && 'text-success')}>{change.label}</span>
        <Verdict result={entry.before} />
        <span aria-hidden>→</span>
        <Verdict result={entry.after} />
        <span className="w-24 text-right font-mono text-xs" title="Cost, after minus before">
          {signedMoney(entry.cost_delta)}
        </span>
        <span className="w-20 text-right font-mono text-xs" title="Time, after minus before">
          {signedMs(entry.duration_delta_ms)}
        </span>
      </summary>
      <div className="grid gap-3 border-t p-3 lg:grid-cols-2">
        {entry.before ? <CaseCard result={entry.before} agent={agents[0]} /> : <p className="text-sm text-muted-foreground">Not in the earlier run.</p>}
        {entry.after ? <CaseCard result={entry.after} agent={agents[1]} /> : <p className="text-sm text-muted-foreground">Not in the later run.</p>}
      </div>
    </details>
  )
}

export function ComparePage() {
  const [params] = useSearchParams()
  const before = params.get('before') ?? ''
  const after = params.get('after') ?? ''
  const comparison = useComparison(before, after)
  const data = comparison.data
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="eval-compare-page">
      <PageHeader
        title="Two runs compared"
        description={
          <Link to="/evals" className="text-primary hover:underline">
            Evals
          </Link>
        }
      />
      <div className="space-y-4 px-6 py-4">
        {!before || !after ? <p className="text-sm text-muted-foreground">Tick two runs of a dataset and press Compare.</p> : <Loading resource={comparison} />}
        {data && (
          <>
            <div className="grid gap-3 sm:grid-cols-2">
              <Side run={data.before} which="before" />
              <Side run={data.after} which="after" />
            </div>
            <p className="flex flex-wrap gap-3 text-sm" aria-label="Changes">
              {tally(data.cases).map(([change, count]) => (
                <span key={change} className={cn(CHANGES[change]?.tone === 'bad' && 'font-semibold text-destructive')}>
                  {count} {CHANGES[change]?.label ?? change}
                </span>
              ))}
            </p>
            <section aria-label="Cases compared" className="space-y-2">
              {data.cases.map((entry) => (
                <Row key={entry.case} entry={entry} agents={[data.before.agent, data.after.agent]} />
              ))}
            </section>
          </>
        )}
      </div>
    </div>
  )
}
