// How the trace pages word a node: kinds, origins, tokens and costs ("unpriced" when the price
// is unknown, never $0), statuses.
import { formatDuration, formatInt } from '@/lib/format'
import { formatMoney } from '@/features/spend/money'
import type { TraceNode } from './api'

export type BadgeVariant = 'default' | 'secondary' | 'outline' | 'mono' | 'success' | 'warning' | 'destructive'

const KIND_LABEL: Record<TraceNode['kind'], string> = { run: 'Agent run', model: 'Model call', tool: 'Tool call' }

/** "run" → "Agent run", "model" → "Model call", "tool" → "Tool call". */
export function kindLabel(kind: TraceNode['kind']): string {
  return KIND_LABEL[kind]
}

const ORIGIN_LABEL: Record<string, string> = {
  code: 'Code',
  config: 'Configured',
  ephemeral: 'Ephemeral',
  workflow: 'Workflow',
  direct: 'Direct',
}

/** What started a run, in words: a discovered agent ("Code"), a configured one, a workflow step… */
export function originLabel(origin: string | null | undefined): string {
  if (!origin) return '—'
  return ORIGIN_LABEL[origin] ?? origin
}

const ORIGIN_HINT: Record<string, string> = {
  code: 'A discovered agent, run by Synapse',
  config: 'A configured agent, run by Synapse',
  ephemeral: 'An agent object handed to the Python API',
  workflow: 'A workflow step',
  direct: 'A pydantic-ai run Synapse did not start itself (an agent called from a tool, say)',
}

export function originHint(origin: string | null | undefined): string | undefined {
  return origin ? ORIGIN_HINT[origin] : undefined
}

/** "1,240 in · 86 out"; null when the node has no token counts (a tool call). */
export function tokensText(node: { input_tokens?: number | null; output_tokens?: number | null }): string | null {
  if (node.input_tokens === null || node.input_tokens === undefined) return null
  return `${formatInt(node.input_tokens)} in · ${formatInt(node.output_tokens)} out`
}

/** A run's or model call's cost ("unpriced" when unknown); null for a tool call, which has none. */
export function costText(node: Pick<TraceNode, 'kind' | 'cost'>, currency = 'USD'): string | null {
  if (node.kind === 'tool') return null
  return formatMoney(node.cost ?? null, currency)
}

/** "2 model calls · 1 tool call". */
export function callsText(modelCalls: number, toolCalls: number): string {
  const word = (count: number, one: string) => `${formatInt(count)} ${one}${count === 1 ? '' : 's'}`
  return `${word(modelCalls, 'model call')} · ${word(toolCalls, 'tool call')}`
}

const moment = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hourCycle: 'h23',
})

/** "Dec 1, 2026, 18:34:09.932" on this browser's clock (a trace is read to the millisecond). */
export function formatMoment(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : moment.format(date)
}

/** How far into the trace a node started: "+12 ms" ("+0 ms" for the root). */
export function offsetText(iso: string, rootIso: string): string {
  const ms = new Date(iso).getTime() - new Date(rootIso).getTime()
  if (!Number.isFinite(ms)) return '—'
  return `+${formatDuration(Math.max(0, ms))}`
}
