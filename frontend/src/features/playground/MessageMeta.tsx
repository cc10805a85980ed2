// The per-answer line: ↑ input ↓ output tokens, cost, duration, with a breakdown on hover/focus,
// the Trace button that opens the turn's trace in a sheet, and Test case that saves the turn into
// an eval dataset (each panel's code loaded on first press).
// It keeps its height while the answer streams, so nothing below it jumps when it fills in.
import { ArrowDown, ArrowUp, FlaskConical, GitFork, LayoutGrid, RotateCw } from '@/components/icons'
import { lazy, Suspense, useState, type ComponentProps, type ComponentType, type ReactNode } from 'react'
import { formatDuration, formatInt } from '@/lib/format'
import type { MetaView } from '@/lib/thread'
import { Tooltip } from '@/components/ui/tooltip'
import { formatMoney } from '@/features/spend/money'
import { TurnContextPanel } from './ContextBars'

type Opened = ComponentType<{ messageId: string; open: boolean; onClose: () => void }>

/** A panel loaded on first use, in a chunk of its own; a chunk that cannot be fetched (a newer
 * build replaced it) says so where the panel would be. */
function loadedLater(load: () => Promise<{ default: Opened }>, what: string) {
  return lazy(() =>
    load().catch(() => ({
      default: ({ open, onClose }: { open: boolean; onClose: () => void }) => (
        <span role="alert" hidden={!open} className="font-sans text-destructive">
          {what} could not be loaded: reload the page.{' '}
          <button type="button" className="cursor-pointer underline" onClick={onClose}>
            Close
          </button>
        </span>
      ),
    })),
  )
}

const TraceSheet = loadedLater(() => import('@/features/traces/TraceSheet'), 'The trace')
const SaveCaseDialog = loadedLater(() => import('@/features/evals/SaveCaseDialog'), 'The test case form')

/** A button of the line that opens `Panel` for the turn, loading it on the first press. */
function PanelButton({ messageId, Panel, children, ...button }: { messageId: string; Panel: Opened; children: ReactNode } & ComponentProps<'button'>) {
  const [open, setOpen] = useState(false)
  const [used, setUsed] = useState(false)
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setUsed(true)
          setOpen(true)
        }}
        className="flex cursor-pointer items-center gap-1 rounded px-1 hover:bg-muted hover:text-foreground"
        {...button}
      >
        {children}
      </button>
      {used && (
        <Suspense fallback={null}>
          <Panel messageId={messageId} open={open} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  )
}

/** The turn's trace: a button, and the sheet once it was pressed. */
function TraceButton({ messageId }: { messageId: string }) {
  return (
    <PanelButton messageId={messageId} Panel={TraceSheet} aria-label="Trace of this turn" data-testid="trace-button">
      <GitFork className="size-3" />
      Trace
    </PanelButton>
  )
}

/** Save the turn as a test case of an eval dataset: a button, and the dialog once it was pressed. */
function SaveCaseButton({ messageId }: { messageId: string }) {
  return (
    <PanelButton
      messageId={messageId}
      Panel={SaveCaseDialog}
      aria-label="Save as test case"
      title="Save this turn as a test case of an eval dataset"
      data-testid="save-case-button"
    >
      <FlaskConical className="size-3" />
      Test case
    </PanelButton>
  )
}

/** What filled each prompt of the turn: a button, and the bars once it was pressed. */
function ContextButton({ open, onToggle }: { open: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      onClick={onToggle}
      aria-expanded={open}
      className="flex cursor-pointer items-center gap-1 rounded px-1 hover:bg-muted hover:text-foreground"
      aria-label="What filled the prompt"
      title="What filled each prompt of this turn, by source"
      data-testid="context-button"
    >
      <LayoutGrid className="size-3" />
      Context
    </button>
  )
}

function Row({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex justify-between gap-6">
      <dt className="text-muted-foreground">{label}</dt>
      <dd className="font-mono">{value}</dd>
    </div>
  )
}

/**
 * `toolCount`: the tool calls the answer shows (its cards). pydantic-ai's `usage.tool_calls` counts
 * the calls that completed, so a stopped turn with three cards would read "0": the cards win.
 */
export function Breakdown({ meta, toolCount }: { meta: MetaView; toolCount?: number }) {
  const usage = meta.usage
  const tools = toolCount ?? usage?.tool_calls
  return (
    <dl className="min-w-48 space-y-0.5 text-xs">
      {meta.model && <Row label="Model" value={meta.provider ? `${meta.provider}:${meta.model}` : meta.model} />}
      <Row label="Input tokens" value={formatInt(usage?.input_tokens)} />
      <Row label="Output tokens" value={formatInt(usage?.output_tokens)} />
      <Row label="Cache read" value={formatInt(usage?.cache_read_tokens)} />
      <Row label="Cache write" value={formatInt(usage?.cache_write_tokens)} />
      <Row label="Reasoning tokens" value={formatInt(usage?.reasoning_tokens)} />
      {usage?.requests !== undefined && <Row label="Requests" value={formatInt(usage.requests)} />}
      {tools !== undefined && <Row label="Tool calls" value={formatInt(tools)} />}
      <Row label="Cost" value={formatMoney(meta.cost, meta.currency ?? 'USD', { exact: true })} />
      <Row label="Duration" value={formatDuration(meta.durationMs)} />
    </dl>
  )
}

export function MessageMeta({
  meta,
  streaming,
  stopped,
  messageId,
  toolCount,
  onRegenerate,
}: {
  meta: MetaView | null
  streaming: boolean
  stopped?: boolean
  /** The tool calls the answer shows. */
  toolCount?: number
  /** Run the question of this answer again (the last answer only). */
  onRegenerate?: () => void
  /** The stored assistant message (its turn's trace is found by it); none: no Trace button. */
  messageId?: string
}) {
  const [contextOpen, setContextOpen] = useState(false)
  return (
    <div className="flex min-h-6 flex-wrap items-center gap-x-3 gap-y-0.5 font-mono text-[11px] text-muted-foreground" data-testid="message-meta">
      {streaming && <span className="animate-pulse">streaming…</span>}
      {!streaming && meta && (
        <Tooltip content={<Breakdown meta={meta} toolCount={toolCount} />}>
          <button type="button" className="flex cursor-help items-center gap-3 rounded px-1 -mx-1 hover:bg-muted" aria-label="Token and cost breakdown">
            <span className="flex items-center gap-0.5" title="Input tokens">
              <ArrowUp className="size-3" />
              {formatInt(meta.usage?.input_tokens)}
            </span>
            <span className="flex items-center gap-0.5" title="Output tokens">
              <ArrowDown className="size-3" />
              {formatInt(meta.usage?.output_tokens)}
            </span>
            <span title="Cost" data-testid="message-cost" className={meta.cost === null ? 'text-warning' : undefined}>
              {formatMoney(meta.cost, meta.currency ?? 'USD')}
            </span>
            <span>{formatDuration(meta.durationMs)}</span>
          </button>
        </Tooltip>
      )}
      {!streaming && stopped && <span className="text-warning">stopped</span>}
      {!streaming && meta && messageId && <TraceButton messageId={messageId} />}
      {!streaming && meta && messageId && <ContextButton open={contextOpen} onToggle={() => setContextOpen(!contextOpen)} />}
      {!streaming && meta && messageId && <SaveCaseButton messageId={messageId} />}
      {!streaming && onRegenerate && (
        <button
          type="button"
          onClick={onRegenerate}
          className="flex cursor-pointer items-center gap-1 rounded px-1 -mx-1 hover:bg-muted hover:text-foreground"
          title="Ask the same question again, in a branch of this conversation"
          data-testid="regenerate"
        >
          <RotateCw className="size-3" /> Regenerate
        </button>
      )}
      {!streaming && contextOpen && messageId && (
        <div className="basis-full pt-1">
          <TurnContextPanel messageId={messageId} />
        </div>
      )}
    </div>
  )
}
