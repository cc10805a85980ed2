// One trace: what the root run cost and took, the timeline of everything inside it, and the
// selected node in full beside it (below it when the column is narrow).
import type { ReactNode } from 'react'
import { formatDuration } from '@/lib/format'
import type { TraceNode } from './api'
import { OriginBadge, StatusBadge } from './Facts'
import { costText, formatMoment, tokensText } from './format'
import { NodeDetail } from './NodeDetail'
import { TraceTimeline } from './TraceTimeline'
import { countNodes, findNode, keyOf } from './tree'

function Stat({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-[11px] text-muted-foreground">{label}</dt>
      <dd className="truncate font-mono text-[13px]" data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

export function TraceSummary({ root }: { root: TraceNode }) {
  const counts = countNodes(root)
  return (
    <div className="min-w-0 space-y-3" data-testid="trace-summary">
      <div className="flex min-w-0 flex-wrap items-center gap-2">
        <h2 className="min-w-0 truncate text-base font-semibold" data-testid="trace-root-name">
          {root.name}
        </h2>
        <StatusBadge status={root.status} />
        <OriginBadge origin={root.origin} />
        {counts.errors > 0 && root.status !== 'error' && (
          <span className="text-xs text-destructive">
            {counts.errors} failed {counts.errors === 1 ? 'node' : 'nodes'} inside
          </span>
        )}
      </div>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Stat label="Duration" testId="trace-total-duration">
          {formatDuration(root.duration_ms)}
        </Stat>
        <Stat label="Tokens (this run)">{tokensText(root) ?? '—'}</Stat>
        <Stat label="Cost (this run)" testId="trace-total-cost">
          {costText(root)}
        </Stat>
        <Stat label="Runs" testId="trace-runs">
          {counts.runs} {counts.depth > 0 && <span className="text-muted-foreground">(depth {counts.depth})</span>}
        </Stat>
        <Stat label="Model / tool calls" testId="trace-calls">
          {counts.models} / {counts.tools}
        </Stat>
        <Stat label="Started">
          <time dateTime={root.started_at}>{formatMoment(root.started_at)}</time>
        </Stat>
      </dl>
    </div>
  )
}

/**
 * The trace of `root`. The selection (a node key, see tree.ts) is the caller's: the page keeps it
 * in the URL, the playground's sheet in its own state. An unknown key shows the root.
 */
export function TraceView({ root, selected, onSelect }: { root: TraceNode; selected: string | null; onSelect: (key: string) => void }) {
  const node = findNode(root, selected) ?? root
  const key = keyOf(node)
  return (
    <div className="@container min-w-0 space-y-5" data-testid="trace-view" data-root={root.agent_run_id}>
      <TraceSummary root={root} />
      <div className="grid min-w-0 gap-5 @4xl:grid-cols-[minmax(0,1fr)_minmax(0,26rem)]">
        <TraceTimeline root={root} selected={key} onSelect={onSelect} />
        <div className="min-w-0 rounded-lg border bg-card p-4 @4xl:sticky @4xl:top-0 @4xl:max-h-[calc(100vh-8rem)] @4xl:overflow-y-auto">
          <NodeDetail key={key} node={node} root={root} />
        </div>
      </div>
    </div>
  )
}
