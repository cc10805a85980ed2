// The thread on screen: the stored replay, then the turns still live in this tab.
import type { ConversationTotals, MessageMetadata, ReplayMessage } from '@/lib/api/types'
import { replayItems } from '@/lib/replay'
import { withAnswers } from '@/lib/stream/approval'
import type { Turn } from '@/lib/stream/turn'
import type { MetaView, ThreadItem } from '@/lib/thread'
import type { LiveExchange } from './useChatSession'

export function metaOf(metadata: MessageMetadata): MetaView | null {
  if (!metadata.usage && metadata.duration_ms === undefined && !metadata.model) return null
  return {
    model: metadata.model ?? null,
    provider: metadata.provider ?? null,
    usage: metadata.usage ?? null,
    cost: metadata.cost ?? null,
    currency: metadata.currency ?? 'USD',
    durationMs: metadata.duration_ms ?? null,
  }
}

/**
 * A live turn as the stored replay will show it: the answer, then its notices (a compression
 * marker, ...) as items of their own, then the error card that ended a failed turn. With nothing
 * before the card, it takes the answer's id, as the stored row does; `itemKeys` keys the notices and
 * a card after an answer by that answer. So the hand-over to the replay keeps the same components
 * (an opened traceback or summary stays open, an expanded tool card stays expanded).
 */
function turnItems(key: string, turn: Turn): ThreadItem[] {
  // The server's ids once known, so the stored replay takes over the same components.
  const id = turn.metadata.message_id ?? `${key}-answer`
  const last = turn.parts.at(-1)
  const failed = turn.status === 'error' && last?.type === 'error' ? last : null
  const kept = failed ? turn.parts.slice(0, -1) : turn.parts
  const parts = kept.filter((part) => part.type !== 'notice')
  const items: ThreadItem[] = []
  if (!failed || parts.length > 0)
    items.push({
      kind: 'assistant',
      id,
      parts,
      meta: turn.status === 'streaming' ? null : metaOf(turn.metadata),
      streaming: turn.status === 'streaming',
      stopped: turn.status === 'aborted',
    })
  kept.forEach((part, index) => {
    if (part.type === 'notice')
      items.push({ kind: 'notice', id: `${id}-notice-${index}`, noticeKind: part.noticeKind, message: part.message, summary: part.summary })
  })
  if (failed) items.push({ kind: 'error', id: parts.length > 0 ? `${id}-error` : id, error: failed.error })
  return items
}

/**
 * Replay first, cut where the first live turn begins (a replay fetched mid-stream may hold its
 * user message already), then each live exchange as a user bubble and an answer. The calls a live
 * exchange answers (decisions that resume a paused run) show decided in what came before it.
 */
export function combineThread(replay: ReplayMessage[] | undefined, live: LiveExchange[]): ThreadItem[] {
  let stored = replay ?? []
  const firstLive = live.find((item) => item.turn.metadata.user_message_id)?.turn.metadata.user_message_id
  if (firstLive) {
    const cut = stored.findIndex((message) => message.id === firstLive)
    if (cut !== -1) stored = stored.slice(0, cut)
  }
  let items = replayItems(stored)
  for (const exchange of live) {
    if (exchange.answers) items = withAnswers(items, exchange.answers)
    const userId = exchange.turn.metadata.user_message_id ?? `${exchange.key}-user`
    items.push({ kind: 'user', id: userId, text: exchange.user.text, attachments: exchange.user.attachments })
    items.push(...turnItems(exchange.key, exchange.turn))
  }
  return items
}

/** The conversation's running totals: the stored ones plus the live turns not stored yet. */
export function combineTotals(totals: ConversationTotals | undefined, live: LiveExchange[]): ConversationTotals {
  const sum: ConversationTotals = {
    input_tokens: totals?.input_tokens ?? 0,
    output_tokens: totals?.output_tokens ?? 0,
    cost: totals?.cost ?? null,
    duration_ms: totals?.duration_ms ?? 0,
    tool_calls: totals?.tool_calls ?? 0,
  }
  for (const { turn } of live) {
    const usage = turn.metadata.usage
    sum.input_tokens += usage?.input_tokens ?? 0
    sum.output_tokens += usage?.output_tokens ?? 0
    if (turn.metadata.cost !== undefined && turn.metadata.cost !== null) sum.cost = (sum.cost ?? 0) + turn.metadata.cost
    sum.duration_ms = (sum.duration_ms ?? 0) + (turn.metadata.duration_ms ?? 0)
    sum.tool_calls += turn.parts.filter((part) => part.type === 'tool').length
  }
  return sum
}
