// A tool call where it happened. Collapsed: name, status and duration. Expanded: the arguments
// and the result (or the error) in the JSON viewer. Native (provider-side) tools look distinct.
// A call the run paused on reads "Awaiting approval" (or "Awaiting result"), then its decision.
import { CheckCircle2, ChevronRight, CircleSlash, Clock, Loader2, Wrench, XCircle, Zap } from '@/components/icons'
import { useId, useState } from 'react'
import { denialReason, pauseKindOf, type PauseKind, type ToolStatus } from '@/lib/stream/approval'
import { cn } from '@/lib/cn'
import { api } from '@/lib/api/client'
import { formatDuration, plural } from '@/lib/format'
import { useResource } from '@/lib/resource'
import type { ToolView } from '@/lib/thread'
import { JsonView } from '@/components/json/JsonView'
import { LongText } from '@/components/common/LongText'
import { Badge } from '@/components/ui/badge'

const STATUS_LABEL: Partial<Record<ToolStatus, string>> = {
  pending: 'Running',
  success: 'Succeeded',
  error: 'Failed',
  interrupted: 'Interrupted',
  approved: 'Approved',
  denied: 'Denied',
}

/** The status in words; `pause` says what an awaiting call waits for. */
export function toolStatusLabel(status: ToolStatus, pause: PauseKind | null = null): string {
  if (status === 'awaiting') return pause === 'external' ? 'Awaiting result' : 'Awaiting approval'
  if (status === 'success' && pause === 'external') return 'Result supplied'
  return STATUS_LABEL[status] ?? status
}

export function ToolStatusIcon({ status, pause = null }: { status: ToolStatus; pause?: PauseKind | null }) {
  const label = toolStatusLabel(status, pause)
  const common = 'size-4 shrink-0'
  switch (status) {
    case 'pending':
      return <Loader2 className={cn(common, 'animate-spin text-muted-foreground')} aria-label={label} role="img" />
    case 'success':
    case 'approved':
      return <CheckCircle2 className={cn(common, 'text-success')} aria-label={label} role="img" />
    case 'error':
      return <XCircle className={cn(common, 'text-destructive')} aria-label={label} role="img" />
    case 'denied':
      return <CircleSlash className={cn(common, 'text-destructive')} aria-label={label} role="img" />
    case 'awaiting':
      return <Clock className={cn(common, 'text-warning')} aria-label={label} role="img" />
    default:
      return <CircleSlash className={cn(common, 'text-muted-foreground')} aria-label={label} role="img" />
  }
}

/** An awaiting call's status in words beside its clock: why the turn stopped here. */
function AwaitingChip({ pause }: { pause: PauseKind | null }) {
  return (
    <Badge variant="warning" className="shrink-0">
      <Clock />
      {toolStatusLabel('awaiting', pause)}
    </Badge>
  )
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="space-y-1.5">
      <h4 className="text-[11px] font-medium uppercase tracking-wider text-muted-foreground">{title}</h4>
      {children}
    </div>
  )
}

/** A stored call whose arguments or result were previews: read it whole when it is opened. */
function useWholeTool(tool: ToolView): ToolView {
  const key = tool.truncated && tool.invocationId ? `tool:${tool.invocationId}` : null
  const whole = useResource(key, () => api.toolInvocation(tool.invocationId ?? ''))
  if (!key || !whole.data) return tool
  return { ...tool, args: whole.data.arguments, result: whole.data.result, error: whole.data.error ?? tool.error, truncated: false }
}

/** Where a paused call's result would be: what it waits for, or what was decided. */
function PausedResult({ tool }: { tool: ToolView }) {
  const external = pauseKindOf(tool) === 'external'
  if (tool.status === 'denied') {
    const reason = denialReason(tool)
    return (
      <Section title="Denied">
        <p className="text-xs text-muted-foreground">{reason ? <LongText text={reason} /> : 'The call was denied; it did not run.'}</p>
      </Section>
    )
  }
  return (
    <Section title="Result">
      <p className="text-xs text-muted-foreground">
        {tool.status === 'approved'
          ? 'Approved: it runs in the answer that follows.'
          : external
            ? 'Runs outside the agent: waiting for its result to be supplied.'
            : 'Waiting for approval before it runs.'}
      </p>
    </Section>
  )
}

function ToolBody({ tool: preview }: { tool: ToolView }) {
  const tool = useWholeTool(preview)
  const streamingArgs = tool.args === undefined && tool.argsText !== undefined
  return (
    <div className="space-y-3 border-t px-3 py-3">
      <Section title="Arguments">
        {streamingArgs ? (
          <pre className="rounded-md border bg-muted/40 p-2 font-mono text-xs whitespace-pre-wrap break-all">{tool.argsText ? <LongText text={tool.argsText} /> : '…'}</pre>
        ) : (
          <JsonView value={tool.args ?? {}} />
        )}
      </Section>
      {tool.status === 'error' ? (
        <Section title="Error">
          <pre className="whitespace-pre-wrap break-words rounded-md border border-destructive/30 bg-destructive/5 p-2 font-mono text-xs text-destructive">
            <LongText text={tool.error || 'The tool failed.'} />
          </pre>
          {tool.result !== undefined && tool.result !== null && <JsonView value={tool.result} />}
        </Section>
      ) : tool.status === 'pending' ? (
        <Section title="Result">
          <p className="text-xs text-muted-foreground">Waiting for the result…</p>
        </Section>
      ) : tool.status === 'awaiting' || tool.status === 'approved' || tool.status === 'denied' ? (
        <PausedResult tool={tool} />
      ) : (
        <Section title={tool.status === 'interrupted' ? 'Result (interrupted)' : 'Result'}>
          {tool.result === undefined ? <p className="text-xs text-muted-foreground">No result.</p> : <JsonView value={tool.result} />}
        </Section>
      )}
      {tool.truncated && <p className="text-[11px] text-muted-foreground">Loading the whole call…</p>}
      {tool.providerStatus && !pauseKindOf(tool) && (
        <p className="font-mono text-[11px] text-muted-foreground">provider status: {tool.providerStatus}</p>
      )}
    </div>
  )
}

export function ToolCard({ tool, defaultOpen = false }: { tool: ToolView; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen)
  const id = useId()
  const native = tool.kind === 'native'
  const Icon = native ? Zap : Wrench
  const pause = pauseKindOf(tool)
  return (
    <div
      className={cn(
        'overflow-hidden rounded-lg border bg-card text-[13px]',
        native && 'border-dashed border-primary/40 bg-primary/5',
        tool.status === 'error' && 'border-destructive/40',
        tool.status === 'awaiting' && 'border-warning/50',
      )}
      data-testid="tool-card"
      data-status={tool.status}
      data-kind={tool.kind}
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        className="flex h-9 w-full cursor-pointer items-center gap-2 px-3 text-left hover:bg-accent/50"
      >
        <ChevronRight className={cn('size-3.5 shrink-0 text-muted-foreground transition-transform', open && 'rotate-90')} />
        <Icon className={cn('size-3.5 shrink-0', native ? 'text-primary' : 'text-muted-foreground')} />
        {native && (
          <span className="shrink-0 rounded bg-primary/15 px-1 text-[10px] font-medium uppercase tracking-wide text-primary">
            {tool.provider ? `${tool.provider} · native` : 'native'}
          </span>
        )}
        {tool.kind === 'output' && <span className="shrink-0 rounded bg-muted px-1 text-[10px] uppercase tracking-wide text-muted-foreground">output</span>}
        <span className="min-w-0 flex-1 truncate font-mono font-medium">{tool.name || 'tool'}</span>
        {tool.status === 'awaiting' ? <AwaitingChip pause={pause} /> : <ToolStatusIcon status={tool.status} pause={pause} />}
        <span className="w-14 shrink-0 text-right font-mono text-xs text-muted-foreground">
          {tool.status === 'pending' || pause ? '' : formatDuration(tool.durationMs)}
        </span>
      </button>
      {open && (
        <div id={id}>
          <ToolBody tool={tool} />
        </div>
      )}
    </div>
  )
}

/** Several calls of one step, stacked. */
export function ToolStack({ tools }: { tools: ToolView[] }) {
  return (
    <div className="flex flex-col gap-1.5" role="list" aria-label={plural(tools.length, 'tool call')}>
      {tools.map((tool, index) => (
        // By position: a live call and its stored copy have different ids.
        <div role="listitem" key={index}>
          <ToolCard tool={tool} />
        </div>
      ))}
    </div>
  )
}
