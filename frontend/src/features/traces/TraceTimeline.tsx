// The tree as a waterfall: one row per run, model call and tool call, indented by how deep it
// sits, each with a bar placed on the root's time line. Rows fold and unfold; the arrow keys move
// the selection (left and right fold and unfold).
import { AlertTriangle, Bot, ChevronRight, Cpu, Wrench } from '@/components/icons'
import { useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { Link } from 'react-router'
import { Button } from '@/components/ui/button'
import { cn } from '@/lib/cn'
import { formatDuration } from '@/lib/format'
import type { TraceNode } from './api'
import { costText, kindLabel, tokensText } from './format'
import { branchKeys, flatten, timelineSpan, waterfall, type Span, type TimelineRow } from './tree'

/** Pixels of indent per level, up to `DEEPEST` levels (a deeper row keeps that indent and its name). */
const INDENT = 14
const DEEPEST = 24

export const KIND_ICON: Record<TraceNode['kind'], ReactNode> = {
  run: <Bot />,
  model: <Cpu />,
  tool: <Wrench />,
}

const BAR: Record<TraceNode['kind'], string> = {
  run: 'bg-primary/70',
  model: 'bg-sky-500/70',
  tool: 'bg-amber-500/75',
}

function Bar({ node, span }: { node: TraceNode; span: Span }) {
  const { offset, width } = waterfall(node, span)
  return (
    <div className="relative h-3.5 min-w-0 overflow-hidden rounded-sm bg-muted/60" aria-hidden>
      <span
        className={cn('absolute inset-y-0 rounded-sm', node.status === 'error' ? 'bg-destructive/80' : BAR[node.kind])}
        style={{ left: `${offset}%`, width: `${width}%` }}
        data-testid="trace-bar"
        data-offset={offset.toFixed(2)}
        data-width={width.toFixed(2)}
      />
    </div>
  )
}

function Row({
  row,
  span,
  selected,
  onSelect,
  onToggle,
}: {
  row: TimelineRow
  span: Span
  selected: boolean
  onSelect: () => void
  onToggle: () => void
}) {
  const { node, level, hasChildren, expanded } = row
  const indent = Math.min(level, DEEPEST) * INDENT
  const tokens = tokensText(node)
  const cost = costText(node)
  const failed = node.status === 'error'
  return (
    <li
      data-testid="trace-node"
      data-kind={node.kind}
      data-level={level}
      data-depth={node.depth ?? undefined}
      data-status={node.status}
      data-key={row.key}
      className={cn('rounded-md', selected ? 'bg-accent' : 'hover:bg-accent/50')}
    >
      <div className="grid cursor-pointer grid-cols-1 items-center gap-x-3 gap-y-1 px-1.5 py-1 @lg:grid-cols-[minmax(0,1fr)_minmax(6rem,38%)_4.5rem]" onClick={onSelect}>
        <div className="flex min-w-0 items-center gap-1" style={{ paddingLeft: indent }}>
          {hasChildren ? (
            <button
              type="button"
              aria-expanded={expanded}
              aria-label={`${expanded ? 'Collapse' : 'Expand'} ${node.name}`}
              onClick={(event) => {
                event.stopPropagation()
                onToggle()
              }}
              className="flex size-5 shrink-0 cursor-pointer items-center justify-center rounded text-muted-foreground hover:bg-muted hover:text-foreground"
            >
              <ChevronRight className={cn('size-3.5 transition-transform', expanded && 'rotate-90')} />
            </button>
          ) : (
            <span className="size-5 shrink-0" aria-hidden />
          )}
          <button
            type="button"
            data-select
            aria-current={selected ? 'true' : undefined}
            aria-label={`${kindLabel(node.kind)} ${node.name}${failed ? ', failed' : ''}`}
            onClick={(event) => {
              event.stopPropagation()
              onSelect()
            }}
            className="flex min-w-0 flex-1 cursor-pointer flex-wrap items-center gap-x-2 rounded text-left focus-visible:outline-2 focus-visible:outline-ring"
          >
            <span className="flex min-w-0 max-w-full items-center gap-1.5">
              <span className={cn('shrink-0 [&_svg]:size-3.5', failed ? 'text-destructive' : 'text-muted-foreground')} title={kindLabel(node.kind)}>
                {failed ? <AlertTriangle /> : KIND_ICON[node.kind]}
              </span>
              <span className={cn('truncate text-[13px]', node.kind === 'run' ? 'font-medium' : 'font-mono text-xs')} data-testid="trace-node-name">
                {node.name}
              </span>
            </span>
            {(tokens || cost) && (
              <span className="font-mono text-[11px] text-muted-foreground">
                {[tokens, cost].filter(Boolean).join(' · ')}
              </span>
            )}
          </button>
        </div>
        <div className="flex min-w-0 items-center gap-2 @lg:contents" style={{ paddingLeft: `calc(${indent}px + 1.5rem)` }}>
          <div className="min-w-0 flex-1 @lg:flex-none">
            <Bar node={node} span={span} />
          </div>
          <span className="shrink-0 text-right font-mono text-[11px] tabular-nums text-muted-foreground" data-testid="trace-duration">
            {formatDuration(node.duration_ms)}
          </span>
        </div>
      </div>
      {failed && node.error && (
        <p className="line-clamp-2 break-words px-1.5 pb-1 text-xs text-destructive" style={{ paddingLeft: `calc(${indent}px + 2rem)` }} data-testid="trace-node-error">
          {node.error}
        </p>
      )}
      {node.hidden ? (
        <p className="px-1.5 pb-1 text-xs text-muted-foreground" style={{ paddingLeft: `calc(${indent}px + 2rem)` }} data-testid="trace-node-hidden">
          {node.hidden.toLocaleString('en-US')} more below, not in this answer:{' '}
          <Link to={`/traces/${encodeURIComponent(node.id)}`} className="underline underline-offset-2 hover:text-foreground">
            open this run’s trace
          </Link>
        </p>
      ) : null}
    </li>
  )
}

export function TraceTimeline({ root, selected, onSelect }: { root: TraceNode; selected: string | null; onSelect: (key: string) => void }) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set())
  const rows = useMemo(() => flatten(root, collapsed), [root, collapsed])
  const span = useMemo(() => timelineSpan(root), [root])
  const list = useRef<HTMLOListElement>(null)
  const branches = useMemo(() => branchKeys(root), [root])
  const toggle = (key: string, open?: boolean) =>
    setCollapsed((was) => {
      const next = new Set(was)
      const shut = open === undefined ? !next.has(key) : !open
      if (shut) next.add(key)
      else next.delete(key)
      return next
    })
  const focusRow = (index: number) => {
    const row = rows[index]
    if (!row) return
    onSelect(row.key)
    list.current?.querySelectorAll<HTMLButtonElement>('button[data-select]')[index]?.focus()
  }
  const onKeyDown = (event: KeyboardEvent<HTMLOListElement>) => {
    const index = rows.findIndex((row) => row.key === selected)
    const row = rows[index]
    if (event.key === 'ArrowDown') focusRow(index + 1)
    else if (event.key === 'ArrowUp') focusRow(Math.max(0, index - 1))
    else if (event.key === 'ArrowRight' && row?.hasChildren) toggle(row.key, true)
    else if (event.key === 'ArrowLeft' && row?.hasChildren) toggle(row.key, false)
    else return
    event.preventDefault()
  }
  return (
    <section aria-label="Timeline" className="@container min-w-0 space-y-1.5">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-xs font-medium text-muted-foreground">Timeline</h3>
        {branches.length > 0 && (
          <div className="flex gap-1">
            <Button variant="ghost" size="xs" onClick={() => setCollapsed(new Set())} disabled={collapsed.size === 0}>
              Expand all
            </Button>
            <Button variant="ghost" size="xs" onClick={() => setCollapsed(new Set(branches))} disabled={collapsed.size === branches.length}>
              Collapse all
            </Button>
          </div>
        )}
      </div>
      <div className="hidden grid-cols-[minmax(0,1fr)_minmax(6rem,38%)_4.5rem] gap-x-3 px-1.5 font-mono text-[10px] text-muted-foreground @lg:grid" aria-hidden>
        <span />
        <span className="flex justify-between">
          <span>0</span>
          <span>{formatDuration(span.duration / 2)}</span>
          <span>{formatDuration(span.duration)}</span>
        </span>
        <span />
      </div>
      <ol ref={list} className="space-y-px" aria-label="Runs, model calls and tool calls" data-testid="trace-timeline" onKeyDown={onKeyDown}>
        {rows.map((row) => (
          <Row key={row.key} row={row} span={span} selected={row.key === selected} onSelect={() => onSelect(row.key)} onToggle={() => toggle(row.key)} />
        ))}
      </ol>
    </section>
  )
}
