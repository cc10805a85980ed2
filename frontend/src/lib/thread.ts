// What the playground's thread shows, whether it comes from a live stream or a stored replay.
import type { ToolKind, Usage } from './api/types'
import type { ToolStatus } from './stream/approval'

export interface ToolView {
  callId: string
  name: string
  kind: ToolKind
  status: ToolStatus
  args: unknown
  /** Arguments as they stream in, before they parse (live only). */
  argsText?: string
  result: unknown
  error: string | null
  durationMs: number | null
  provider?: string | null
  providerStatus?: string | null
  /** Client clock when the call started (live only), for a duration measured in the browser. */
  startedAt?: number
  /** The stored invocation (replay only): where the whole of a truncated call can be read. */
  invocationId?: string
  truncated?: boolean
}

/** What a provider said when it refused a request (status, its error type and code, ...). */
export interface ProviderErrorView {
  status: number | null
  type: string | null
  code: string | null
  message: string | null
  /** Seconds its Retry-After asked for. */
  retryAfter: number | null
  model: string | null
  /** `rate_limited`, `quota_exhausted` (the plan or credit is used up), `provider_error`, or
   * `spending_limit` (Synapse's own limit refused the call). */
  kind?: string | null
  /** For `spending_limit`: the limit, what is spent, the call's reservation and the headroom. */
  limit?: LimitRefusalView | null
}

/** A spending limit's refusal: amounts are decimal strings in `currency`. */
export interface LimitRefusalView {
  scope: string | null
  scopeId: string | null
  period: string | null
  amount: string | null
  currency: string | null
  consumed: string | null
  reservation: string | null
  headroom: string | null
}

export interface ErrorView {
  className: string | null
  message: string
  traceback: string | null
  recoverable: boolean
  provider?: ProviderErrorView | null
  /** When it happened (ms since the epoch): where a Retry-After countdown starts. */
  at?: number | null
}

/** A provider object as the API sends it (snake_case), or null for anything else. */
export function providerErrorOf(value: unknown): ProviderErrorView | null {
  if (!value || typeof value !== 'object') return null
  const raw = value as Record<string, unknown>
  const text = (key: string) => (typeof raw[key] === 'string' || typeof raw[key] === 'number' ? String(raw[key]) : null)
  const number = (key: string) => (typeof raw[key] === 'number' && Number.isFinite(raw[key]) ? (raw[key] as number) : null)
  const limit = raw.limit && typeof raw.limit === 'object' ? (raw.limit as Record<string, unknown>) : null
  const limitText = (key: string) => (limit && (typeof limit[key] === 'string' || typeof limit[key] === 'number') ? String(limit[key]) : null)
  return {
    status: number('status'),
    type: text('type'),
    code: text('code'),
    message: text('message'),
    retryAfter: number('retry_after'),
    model: text('model'),
    kind: text('kind'),
    limit: limit
      ? {
          scope: limitText('scope'),
          scopeId: limitText('scope_id'),
          period: limitText('period'),
          amount: limitText('amount'),
          currency: limitText('currency'),
          consumed: limitText('consumed'),
          reservation: limitText('reservation'),
          headroom: limitText('headroom'),
        }
      : null,
  }
}

export type AssistantPart =
  | { type: 'text'; id: string; text: string; streaming: boolean }
  | { type: 'reasoning'; id: string; text: string; streaming: boolean }
  | { type: 'tool'; id: string; tool: ToolView }
  | { type: 'structured-output'; id: string; output: unknown }
  | { type: 'notice'; id: string; noticeKind: string; message: string; summary?: string | null }
  | { type: 'error'; id: string; error: ErrorView }
  | { type: 'source'; id: string; url: string; title: string | null }
  | { type: 'file'; id: string; url: string; mediaType: string }

export interface MetaView {
  model: string | null
  provider: string | null
  usage: Usage | null
  cost: number | null
  currency: string | null
  durationMs: number | null
}

export interface AttachmentView {
  name: string
  mediaType: string
  size: number
  url: string | null
}

export type ThreadItem =
  | { kind: 'user'; id: string; text: string; attachments: AttachmentView[] }
  | { kind: 'assistant'; id: string; parts: AssistantPart[]; meta: MetaView | null; streaming: boolean; stopped?: boolean }
  | { kind: 'error'; id: string; error: ErrorView }
  | { kind: 'notice'; id: string; noticeKind: string; message: string; summary?: string | null }

/** Consecutive tool parts form one stack, sources one list; everything else stands alone. */
export type PartGroup =
  | { type: 'tools'; id: string; tools: ToolView[] }
  | { type: 'sources'; id: string; sources: { url: string; title: string | null }[] }
  | { type: 'single'; part: AssistantPart }

export function groupParts(parts: AssistantPart[]): PartGroup[] {
  const groups: PartGroup[] = []
  for (const part of parts) {
    const last = groups[groups.length - 1]
    if (part.type === 'tool') {
      if (last?.type === 'tools') last.tools.push(part.tool)
      else groups.push({ type: 'tools', id: part.id, tools: [part.tool] })
    } else if (part.type === 'source') {
      if (last?.type === 'sources') last.sources.push(part)
      else groups.push({ type: 'sources', id: part.id, sources: [part] })
    } else {
      groups.push({ type: 'single', part })
    }
  }
  return groups
}
