// /evals/runs/:id — one run: its totals and its cases, failing ones first, each with every
// evaluator's verdict and reason, its output, and links to its conversation and trace. Read
// again every second until it ends; Stop asks the runner to start no new case.
import { CircleSlash } from '@/components/icons'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { messageOf, PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { conversationPath } from '@/features/conversations/paths'
import { formatMoney } from '@/features/spend/money'
import { Loading } from '@/features/spend/Loading'
import { formatDuration, formatInt } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { ended, evalsApi, type CaseResult, type RunDetail } from './api'
import { useRun } from './queries'
import { RunStatus } from './RunsTable'
import { passRate, runName, verdictOf, whyFailed } from './verdicts'

const VERDICT_BADGE = { pass: 'success', fail: 'destructive', error: 'warning' } as const

function output(value: unknown): string {
  if (value === null || value === undefined) return '—'
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}

function Assertions({ result }: { result: CaseResult }) {
  const entries = Object.entries(result.assertions) as [string, { value?: unknown; reason?: string | null }][]
  if (!entries.length) return null
  return (
    <ul className="flex flex-wrap gap-1" aria-label="Evaluators">
      {entries.map(([name, assertion]) => (
        <li key={name}>
          <Badge variant={assertion.value ? 'success' : 'destructive'} title={assertion.reason ?? undefined}>
            {assertion.value ? '✓' : '✗'} {name}
          </Badge>
        </li>
      ))}
    </ul>
  )
}

export function CaseCard({ result, agent }: { result: CaseResult; agent: string }) {
  const verdict = verdictOf(result)
  const why = whyFailed(result)
  const scores = Object.entries(result.scores) as [string, { value?: unknown }][]
  return (
    <article className="space-y-2 rounded-lg border bg-card p-3" data-testid="eval-case-result" aria-label={`Case ${result.case}`}>
      <header className="flex flex-wrap items-center gap-2">
        <Badge variant={VERDICT_BADGE[verdict]} data-testid="case-verdict">
          {verdict}
        </Badge>
        <h3 className="font-medium">{result.case}</h3>
        <span className="ml-auto font-mono text-xs text-muted-foreground">
          {formatMoney(result.cost)} · {formatDuration(result.duration_ms)} · ↑{formatInt(result.input_tokens)} ↓{formatInt(result.output_tokens)}
        </span>
        {result.conversation_id && (
          <Link to={conversationPath(agent, result.conversation_id)} className="text-xs text-primary hover:underline">
            Conversation and trace
          </Link>
        )}
      </header>
      <Assertions result={result} />
      {scores.length > 0 && (
        <p className="font-mono text-xs text-muted-foreground">
          {scores.map(([name, score]) => `${name} ${String(score.value)}`).join(' · ')}
        </p>
      )}
      {why.length > 0 && (
        <ul className="space-y-0.5 text-xs text-destructive" aria-label="Why it did not pass">
          {why.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <pre className="max-h-40 overflow-auto whitespace-pre-wrap rounded-md bg-muted/50 p-2 text-xs">{output(result.output)}</pre>
    </article>
  )
}

function Totals({ run }: { run: RunDetail }) {
  const means = Object.entries(run.scores)
  return (
    <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-5" aria-label="Totals">
      {[
        ['Passed', `${passRate(run)} (${run.passed}/${run.case_count})`],
        ['Failed · errored', `${run.failed} · ${run.errored}`],
        ['Cost', formatMoney(run.cost)],
        ['Tokens', `↑${formatInt(run.input_tokens)} ↓${formatInt(run.output_tokens)}`],
        ['Time', formatDuration(run.duration_ms)],
      ].map(([label = '', value]) => (
        <div key={label} className="rounded-lg border p-2">
          <dt className="text-xs text-muted-foreground">{label}</dt>
          <dd className="font-mono" data-testid={`total-${(label.split(' ')[0] ?? '').toLowerCase()}`}>
            {value}
          </dd>
        </div>
      ))}
      {means.length > 0 && (
        <div className="col-span-full text-xs text-muted-foreground">Mean scores: {means.map(([name, mean]) => `${name} ${mean.toFixed(2)}`).join(' · ')}</div>
      )}
    </dl>
  )
}

export function RunPage() {
  const id = useParams().id ?? ''
  const run = useRun(id)
  const [stopError, setStopError] = useState<string | null>(null)
  const data = run.data
  const stop = async () => {
    try {
      await evalsApi.stop(id)
      invalidate('evals:')
    } catch (error) {
      setStopError(messageOf(error))
    }
  }
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="eval-run-page">
      <PageHeader
        title={data ? runName(data) : 'Eval run'}
        description={
          data && (
            <span className="flex flex-wrap items-center gap-2">
              <Link to={`/evals/datasets/${encodeURIComponent(data.dataset)}`} className="text-primary hover:underline">
                {data.dataset} v{data.dataset_version}
              </Link>
              <span>
                on <span className="font-mono">{data.agent}</span>
                {data.agent_version ? ` version ${data.agent_version}` : ''}
                {(data.model || data.preset) && (
                  <>
                    {' '}
                    with {data.preset ? 'preset ' : ''}
                    <span className="font-mono">{data.preset ?? data.model}</span>
                  </>
                )}
              </span>
              <RunStatus run={data} />
            </span>
          )
        }
        actions={
          data &&
          !ended(data.status) && (
            <Button size="sm" variant="outline" onClick={stop} disabled={data.status === 'stopping'}>
              <CircleSlash /> Stop
            </Button>
          )
        }
      />
      <div className="space-y-4 px-6 py-4">
        <Loading resource={run} />
        {stopError && (
          <p role="alert" className="text-xs text-destructive">
            {stopError}
          </p>
        )}
        {data?.error && (
          <p role="alert" className="rounded-md border border-destructive/40 p-2 text-sm text-destructive">
            {data.error}
          </p>
        )}
        {data && <Totals run={data} />}
        {data && (
          <section aria-label="Case results" className="space-y-2">
            {data.cases.map((result) => (
              <CaseCard key={result.position} result={result} agent={data.agent} />
            ))}
            {data.cases.length === 0 && <p className="text-sm text-muted-foreground">{ended(data.status) ? 'No case ran.' : 'Waiting for the first case…'}</p>}
          </section>
        )}
      </div>
    </div>
  )
}
