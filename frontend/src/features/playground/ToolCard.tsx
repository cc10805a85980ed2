// A tool call where it happened. Collapsed: name, status and duration. Expanded: the arguments
// and the result (or the error) in the JSON viewer. Native (provider-side) tools look distinct.
import { CheckCircle2, ChevronRight, CircleSlash, Loader2, Wrench, XCircle, Zap } from '@/components/icons'
import { useId, useState } from 'react'
import type { ToolStatus } from '@/lib/api/types'
import { cn } from '@/lib/cn'
import { api } from '@/lib/api/client'
import { formatDuration, plural } from '@/lib/format'
import { useResource } from '@/lib/resource'
import type { ToolView } from '@/lib/thread'
import { JsonView } from '@/components/json/JsonView'
import { LongText } from '@/components/common/LongText'

const STATUS_LABEL: Record<ToolStatus, string> = {
  pending: 'Running',
  success: 'Succeeded',
  error: 'Failed',
  interrupted: 'Interrupted',
}

export function ToolStatusIcon({ status }: { status: ToolStatus }) {
  const label = STATUS_LABEL[status]
  const common = 'size-4 shrink-0'
  switch (status) {
    case 'pending':
      return <Loader2 className={cn(common, 'animate-spin text-muted-foreground')} aria-label={label} role="img" />
    case 'success':
      return <CheckCircle2 className={cn(common, 'text-success')} aria-label={label} role="img" />
    case 'error':
      return <XCircle className={cn(common, 'text-destructive')} aria-label={label} role="img" />
    case 'interrupted':
      return <CircleSlash className={cn(common, 'text-muted-foreground')} aria-label={label} role="img" />
  }
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
      ) : (
        <Section title={tool.status === 'interrupted' ? 'Result (interrupted)' : 'Result'}>
          {tool.result === undefined ? <p className="text-xs text-muted-foreground">No result.</p> : <JsonView value={tool.result} />}
        </Section>
      )}
      {tool.truncated && <p className="text-[11px] text-muted-foreground">Loading the whole call…</p>}
      {tool.providerStatus && <p className="font-mono text-[11px] text-muted-foreground">provider status: {tool.providerStatus}</p>}
    </div>
  )
}

export function ToolCard({ tool, defaultOpen = false }: { tool: ToolView; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen)
  const id = useId()
  const native = tool.kind === 'native'
  const Icon = native ? Zap : Wrench
  return (
    <div
      className={cn(
        'overflow-hidden rounded-lg border bg-card text-[13px]',
        native && 'border-dashed border-primary/40 bg-primary/5',
        tool.status === 'error' && 'border-destructive/40',
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
        <ToolStatusIcon status={tool.status} />
        <span className="w-14 shrink-0 text-right font-mono text-xs text-muted-foreground">
          {tool.status === 'pending' ? '' : formatDuration(tool.durationMs)}
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
