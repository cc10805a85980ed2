// The roots, newest first: one line each (agent, origin, status, model, tokens, cost, duration,
// counts, when), opening its trace; pages follow one another with "Load more" (`next_before`).
import { AlertTriangle, Bot, SearchX } from '@/components/icons'
import { Link } from 'react-router'
import { EmptyState, ErrorState } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { cn } from '@/lib/cn'
import { formatDuration, formatRelative } from '@/lib/format'
import type { TraceRoot } from './api'
import { OriginBadge } from './Facts'
import { callsText, costText, formatMoment, tokensText } from './format'
import { useRootPage } from './queries'

export const PAGE_SIZE = 50

export function RootLine({ root, now }: { root: TraceRoot; now: number }) {
  const failed = root.status === 'error'
  const name = root.agent_name ?? root.agent_key ?? 'agent'
  const cost = costText({ kind: 'run', cost: root.cost })
  return (
    <li>
      <Link
        to={`/traces/${encodeURIComponent(root.agent_run_id)}`}
        className="block min-w-0 space-y-1 rounded-md border bg-card px-3 py-2 hover:bg-accent"
        data-testid="trace-root"
        data-run={root.agent_run_id}
        data-status={root.status}
        aria-label={`Trace of ${name}, ${failed ? 'failed' : 'ok'}, ${formatRelative(root.started_at, now)}`}
      >
        <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
          <span className={cn('shrink-0 [&_svg]:size-3.5', failed ? 'text-destructive' : 'text-muted-foreground')}>{failed ? <AlertTriangle /> : <Bot />}</span>
          <span className={cn('min-w-0 max-w-full truncate text-[13px] font-medium', failed && 'text-destructive')} data-testid="trace-root-agent">
            {name}
          </span>
          <OriginBadge origin={root.origin} />
          {failed && (
            <Badge variant="destructive" data-testid="trace-root-status">
              Error
            </Badge>
          )}
          {root.depth > 0 && <Badge variant="secondary">step, depth {root.depth}</Badge>}
          <time dateTime={root.started_at} title={formatMoment(root.started_at)} className="ml-auto shrink-0 text-xs text-muted-foreground">
            {formatRelative(root.started_at, now)}
          </time>
        </div>
        <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-0.5 font-mono text-[11px] text-muted-foreground">
          {root.model && <span className="min-w-0 max-w-full truncate">{root.model}</span>}
          <span data-testid="trace-root-tokens">{tokensText(root)}</span>
          <span className={root.cost === null ? 'italic' : undefined} data-testid="trace-root-cost">
            {cost}
          </span>
          <span data-testid="trace-root-duration">{formatDuration(root.duration_ms)}</span>
          <span data-testid="trace-root-calls">{callsText(root.model_calls, root.tool_calls)}</span>
        </div>
        {failed && root.error && <p className="line-clamp-2 break-words text-xs text-destructive">{root.error}</p>}
      </Link>
    </li>
  )
}

/**
 * One page of roots (`before`: the cursor it starts after, '' for the first). The last page on
 * screen offers the next; `filtered` words the empty state.
 */
export function RootPage({
  filters,
  before,
  last,
  filtered,
  now,
  onMore,
}: {
  filters: URLSearchParams
  before: string
  last: boolean
  filtered: boolean
  now: number
  onMore: (next: string) => void
}) {
  const query = new URLSearchParams(filters)
  query.set('limit', String(PAGE_SIZE))
  if (before) query.set('before', before)
  const page = useRootPage(query)
  if (page.data === undefined)
    return page.error !== undefined ? <ErrorState error={page.error} retry={page.reload} /> : <Skeleton className="h-24" />
  const roots = page.data.roots
  const next = page.data.next_before
  return (
    <>
      {roots.length === 0 && !before && (
        <EmptyState icon={filtered ? <SearchX /> : <Bot />} title={filtered ? 'No trace matches' : 'No traces yet'}>
          {filtered ? (
            <p>Try another agent, another origin, or all statuses.</p>
          ) : (
            <p>
              Every turn Synapse runs is traced: the playground, app conversations, tasks and workflows. Request and response bodies
              are kept for playground turns (the <code>debug_playground</code> setting); turn on <code>debug</code>, list agents in{' '}
              <code>debug_agents</code>, or give an agent <code>metadata={'{'}'synapse.debug': True{'}'}</code> to keep them for its other runs.
            </p>
          )}
        </EmptyState>
      )}
      {roots.length > 0 && (
        <ul className={cn('space-y-1.5', page.loading && 'opacity-60')} aria-label={before ? 'More traces' : 'Traces'} data-testid="trace-roots">
          {roots.map((root) => (
            <RootLine key={root.agent_run_id} root={root} now={now} />
          ))}
        </ul>
      )}
      {last && next && (
        <div className="flex justify-center">
          <Button variant="outline" size="sm" onClick={() => onMore(next)}>
            Load more
          </Button>
        </div>
      )}
    </>
  )
}
