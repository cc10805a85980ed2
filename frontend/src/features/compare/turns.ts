// Two conversations side by side, turn by turn. A turn is a user message and the rows that answer
// it (answers, error cards, notices). Turns both branches share (one copied from the other by a
// fork, or both copied from the same row) collapse into one "N shared turns" row; the others are
// paired by position.
import type { ReplayMessage, ReplayUserMessage } from '@/lib/api/types'

export interface Turn {
  /** Null for rows before the first user message. */
  user: ReplayUserMessage | null
  rows: ReplayMessage[]
}

export type AlignedRow =
  | { kind: 'shared'; start: number; turns: Turn[] }
  | { kind: 'turn'; index: number; a: Turn | null; b: Turn | null }

/** The messages of a thread cut into turns, in order. */
export function splitTurns(messages: ReplayMessage[]): Turn[] {
  const turns: Turn[] = []
  for (const message of messages) {
    if (message.role === 'user') turns.push({ user: message, rows: [] })
    else if (turns.length === 0) turns.push({ user: null, rows: [message] })
    else turns[turns.length - 1]!.rows.push(message)
  }
  return turns
}

const copiedFrom = (message: ReplayMessage): string | null => message.copied_from_id ?? null

/** Whether two rows are one: the same row, one a copy of the other, or both copies of one row. */
export function sameRow(a: ReplayMessage, b: ReplayMessage): boolean {
  if (a.id === b.id) return true
  const fromA = copiedFrom(a)
  const fromB = copiedFrom(b)
  return fromA === b.id || fromB === a.id || (fromA !== null && fromA === fromB)
}

const rowsOf = (turn: Turn): ReplayMessage[] => (turn.user ? [turn.user, ...turn.rows] : turn.rows)

/** Whether two turns are the same turn, row for row. */
export function sameTurn(a: Turn, b: Turn): boolean {
  const left = rowsOf(a)
  const right = rowsOf(b)
  return left.length === right.length && left.every((row, i) => sameRow(row, right[i]!))
}

/** Both threads' turns paired by position; runs of shared turns become one row. */
export function alignTurns(a: ReplayMessage[], b: ReplayMessage[]): AlignedRow[] {
  const left = splitTurns(a)
  const right = splitTurns(b)
  const rows: AlignedRow[] = []
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const turnA = left[index] ?? null
    const turnB = right[index] ?? null
    const last = rows[rows.length - 1]
    if (turnA && turnB && sameTurn(turnA, turnB)) {
      if (last?.kind === 'shared') last.turns.push(turnA)
      else rows.push({ kind: 'shared', start: index, turns: [turnA] })
    } else {
      rows.push({ kind: 'turn', index, a: turnA, b: turnB })
    }
  }
  return rows
}

export interface ToolLine {
  name: string
  status: string
  durationMs: number | null
}

export interface TurnSummary {
  userText: string
  attachments: string[]
  /** The answers' text, as Markdown (structured output as a JSON block). */
  answer: string
  tools: ToolLine[]
  errors: string[]
  notices: string[]
  inputTokens: number
  outputTokens: number
  /** USD; null when an answer's price is unknown (or there is no answer): unpriced, not free. */
  cost: number | null
  durationMs: number | null
  models: string[]
}

function answerText(message: Extract<ReplayMessage, { role: 'assistant' }>): string {
  const pieces: string[] = []
  for (const part of message.parts ?? []) {
    if (part.type === 'text' && part.text) pieces.push(part.text)
    else if (part.type === 'structured-output') pieces.push(`\`\`\`json\n${JSON.stringify(part.output, null, 2)}\n\`\`\``)
  }
  if (pieces.length === 0 && message.content) pieces.push(message.content)
  return pieces.join('\n\n')
}

/** What a turn's card shows. */
export function summarizeTurn(turn: Turn): TurnSummary {
  const summary: TurnSummary = {
    userText: turn.user?.content ?? '',
    attachments: (turn.user?.attachments ?? []).map((a) => a.name ?? 'attachment'),
    answer: '',
    tools: [],
    errors: [],
    notices: [],
    inputTokens: 0,
    outputTokens: 0,
    cost: null,
    durationMs: null,
    models: [],
  }
  const answers: string[] = []
  let priced = true
  let cost = 0
  let answered = false
  for (const row of turn.rows) {
    if (row.role === 'error') summary.errors.push(row.content)
    else if (row.role === 'notice') summary.notices.push(row.content)
    if (row.role !== 'assistant') continue
    answered = true
    const text = answerText(row)
    if (text) answers.push(text)
    for (const part of row.parts ?? [])
      if (part.type === 'tool' || part.type === 'native-tool')
        summary.tools.push({ name: part.tool.name, status: part.tool.status, durationMs: part.tool.duration_ms ?? null })
    summary.inputTokens += row.input_tokens ?? 0
    summary.outputTokens += row.output_tokens ?? 0
    if (row.cost === null || row.cost === undefined) priced = false
    else cost += row.cost
    if (row.duration_ms !== null && row.duration_ms !== undefined) summary.durationMs = (summary.durationMs ?? 0) + row.duration_ms
    const model = row.meta?.model ? (row.meta.provider ? `${row.meta.provider}:${row.meta.model}` : row.meta.model) : null
    if (model && !summary.models.includes(model)) summary.models.push(model)
  }
  summary.answer = answers.join('\n\n')
  summary.cost = answered && priced ? cost : null
  return summary
}

export interface BranchTotals {
  turns: number
  inputTokens: number
  outputTokens: number
  /** Null when any answer's price is unknown. */
  cost: number | null
  durationMs: number
  toolCalls: number
  models: string[]
}

/**
 * A branch's totals for the summary row, over every row it shows (copied turns included, so two
 * branches add up the same way whichever of them was forked).
 */
export function branchTotals(messages: ReplayMessage[]): BranchTotals {
  const totals: BranchTotals = { turns: 0, inputTokens: 0, outputTokens: 0, cost: 0, durationMs: 0, toolCalls: 0, models: [] }
  for (const turn of splitTurns(messages)) {
    const summary = summarizeTurn(turn)
    if (turn.user) totals.turns += 1
    totals.inputTokens += summary.inputTokens
    totals.outputTokens += summary.outputTokens
    totals.durationMs += summary.durationMs ?? 0
    totals.toolCalls += summary.tools.length
    const answered = turn.rows.some((row) => row.role === 'assistant')
    if (answered) totals.cost = totals.cost === null || summary.cost === null ? null : totals.cost + summary.cost
    for (const model of summary.models) if (!totals.models.includes(model)) totals.models.push(model)
  }
  return totals
}
