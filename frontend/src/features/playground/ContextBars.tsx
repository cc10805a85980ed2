// What filled each prompt of a turn: one stacked bar per model request, a block per source (rules,
// instructions, tool definitions, the summary of older turns, the history sent verbatim, the new
// message, the turn so far), drawn against the model's context window when it is known. A block's
// text opens on click. Counts are estimates (about four characters a token) and say so; the
// provider's own count of the whole request sits beside them.
import { useState } from 'react'
import { request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'
import { formatInt } from '@/lib/format'
import { useResource } from '@/lib/resource'

type Schemas = components['schemas']
export type RequestContext = Schemas['RequestContext']
export type ContextBlock = Schemas['ContextBlock']

const COLORS: Record<ContextBlock['kind'], string> = {
  rules: 'bg-rose-500',
  instructions: 'bg-amber-500',
  memories: 'bg-fuchsia-500',
  tools: 'bg-violet-500',
  summary: 'bg-emerald-600',
  history: 'bg-sky-500',
  message: 'bg-primary',
  run: 'bg-slate-400',
  retrieved: 'bg-teal-500',
}

const enc = encodeURIComponent

export const useTurnContext = (messageId: string | null) =>
  useResource(messageId ? `context:message:${messageId}` : null, () =>
    request<Schemas['TurnContext']>(`/api/messages/${enc(messageId ?? '')}/context`),
  )

export const useCallContext = (debugId: string | null) =>
  useResource(debugId ? `context:call:${debugId}` : null, () =>
    request<Schemas['CallContext']>(`/api/traces/calls/${enc(debugId ?? '')}/context`),
  )

/** The scale a request's bar is drawn on: the model's window when known, else what was sent. */
function scaleOf(context: RequestContext): number {
  return Math.max(context.context_window ?? 0, context.estimated_tokens, context.input_tokens ?? 0, 1)
}

function percent(tokens: number, scale: number): string {
  return `${Math.max(0.5, (tokens / scale) * 100).toFixed(2)}%`
}

/** One request's bar, its figures, and the text of the block picked. */
export function ContextBar({ context, title }: { context: RequestContext; title: string }) {
  const [picked, setPicked] = useState<ContextBlock['kind'] | null>(null)
  const scale = scaleOf(context)
  const block = context.blocks.find((b) => b.kind === picked) ?? null
  return (
    <div className="space-y-1" data-testid="context-request">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 text-[11px] text-muted-foreground">
        <span className="font-medium text-foreground">{title}</span>
        <span>
          ≈{formatInt(context.estimated_tokens)} tokens (estimated)
          {context.input_tokens !== null && <> · the provider counted {formatInt(context.input_tokens)}</>}
          {context.context_window ? <> · window {formatInt(context.context_window)}</> : <> · window unknown</>}
        </span>
      </div>
      <div className="flex h-3 w-full overflow-hidden rounded bg-muted" role="group" aria-label={`${title}: context by source`}>
        {context.blocks.map((b) => (
          <button
            key={b.kind}
            type="button"
            className={`${COLORS[b.kind]} h-full cursor-pointer border-r border-background/60 last:border-r-0 hover:opacity-80 ${picked === b.kind ? 'opacity-70' : ''}`}
            style={{ width: percent(b.tokens, scale) }}
            title={`${b.label}: ≈${formatInt(b.tokens)} tokens`}
            aria-label={`${b.label}: about ${b.tokens} tokens`}
            aria-pressed={picked === b.kind}
            data-testid={`context-block-${b.kind}`}
            onClick={() => setPicked(picked === b.kind ? null : b.kind)}
          />
        ))}
      </div>
      <ul className="flex flex-wrap gap-x-3 gap-y-0.5 text-[11px] text-muted-foreground">
        {context.blocks.map((b) => (
          <li key={b.kind} className="flex items-center gap-1">
            <span className={`inline-block size-2 rounded-sm ${COLORS[b.kind]}`} />
            {b.label} ≈{formatInt(b.tokens)}
          </li>
        ))}
      </ul>
      {block && (
        <div className="rounded-md border bg-muted/30 p-2 text-xs" data-testid="context-block-text">
          <p className="mb-1 font-medium">
            {block.label} · ≈{formatInt(block.tokens)} tokens
          </p>
          {block.text === null || block.text === undefined ? (
            <p className="text-muted-foreground">
              The text is kept for turns that keep their bodies (playground turns, debug on, debug_agents).
            </p>
          ) : (
            <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words font-mono text-[11px]">
              {block.text}
              {block.truncated && '\n[… cut at 4,000 characters]'}
            </pre>
          )}
        </div>
      )}
    </div>
  )
}

/** Every request of the turn whose answer is `messageId`. */
export function TurnContextPanel({ messageId }: { messageId: string }) {
  const { data, error, loading } = useTurnContext(messageId)
  if (error) return <p className="text-xs text-destructive">What filled the prompt could not be read.</p>
  if (loading && !data) return <p className="text-xs text-muted-foreground">Loading…</p>
  const requests = data?.requests ?? []
  if (!requests.length) return <p className="text-xs text-muted-foreground">Nothing was recorded for this turn.</p>
  return (
    <div className="w-full space-y-3 rounded-lg border bg-card p-3 font-sans" data-testid="context-panel">
      {requests.map((context) => (
        <ContextBar key={context.position} context={context} title={`Request ${context.position + 1}${context.model ? ` · ${context.model}` : ''}`} />
      ))}
    </div>
  )
}
