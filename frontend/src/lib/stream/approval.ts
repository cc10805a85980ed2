// Tool calls a run paused on (docs/api.md): an approval (Approve or Deny) or a call executed outside
// the run, whose result the user supplies. The same calls come from the live stream and the store.
import type { ToolStatus as StoredToolStatus } from '../api/types'
import type { AssistantPart, ThreadItem, ToolView } from '../thread'

/**
 * A tool call's status: the stored ones, and those of a call that waited for a person
 * (`awaiting`, then `approved` or `denied`; an external call's supplied result reads `success`).
 */
export type ToolStatus = StoredToolStatus | 'awaiting' | 'approved' | 'denied'

/** What a paused call waits for (the stored `provider_status` of its row). */
export type PauseKind = 'approval' | 'external'

/** The `data-tool-approval` chunk's data: one call the run paused on. */
export interface ToolApprovalData {
  tool_call_id: string
  tool_name: string
  args?: unknown
  kind: PauseKind
}

/** One call's answer, as the chat route's `decisions` field takes it. */
export type Decision = { approved: true } | { approved: false; reason?: string } | { result: unknown }

/** Answers by tool call id, in the order the calls were made. */
export type Decisions = Record<string, Decision>

const PAUSED_STATUSES = new Set<string>(['awaiting', 'approved', 'denied'])

export function isPauseKind(value: unknown): value is PauseKind {
  return value === 'approval' || value === 'external'
}

/** What the call waited for, or null for a call that never paused. */
export function pauseKindOf(tool: ToolView): PauseKind | null {
  if (tool.kind !== 'function' || !isPauseKind(tool.providerStatus)) return null
  // A supplied result reads `success`: still the paused call, now answered.
  return PAUSED_STATUSES.has(tool.status) || (tool.status === 'success' && tool.providerStatus === 'external')
    ? tool.providerStatus
    : null
}

/** The calls of an answer that paused, in order (decided or still waiting). */
export function pausedTools(parts: AssistantPart[]): ToolView[] {
  return parts.flatMap((part) => (part.type === 'tool' && pauseKindOf(part.tool) ? [part.tool] : []))
}

/** What the thread waits for: the kinds of its calls still awaiting a decision (empty: nothing). */
export function awaitingKinds(items: ThreadItem[]): Set<PauseKind> {
  const kinds = new Set<PauseKind>()
  for (const item of items) {
    if (item.kind !== 'assistant') continue
    for (const tool of pausedTools(item.parts)) if (tool.status === 'awaiting') kinds.add(pauseKindOf(tool)!)
  }
  return kinds
}

/** The call as the store reads it once `decision` is taken. */
export function decidedTool(tool: ToolView, decision: Decision): ToolView {
  if ('result' in decision) return { ...tool, status: 'success', result: decision.result, error: null }
  if (decision.approved) return { ...tool, status: 'approved', error: null }
  return { ...tool, status: 'denied', error: decision.reason || 'Denied.' }
}

/** One paused call answered: the call as shown, its tool call id, and the decision. */
export interface Answer {
  tool: ToolView
  /** The id the run knows the call by (a stored call shown in a thread may be keyed by its row). */
  callId: string
  decision: Decision
}

/** The chat route's `decisions` for these answers. */
export function decisionsOf(answers: Answer[]): Decisions {
  return Object.fromEntries(answers.map((answer) => [answer.callId, answer.decision]))
}

function answerFor(tool: ToolView, answers: Answer[]): Answer | undefined {
  return answers.find((a) => a.tool.callId === tool.callId || a.callId === tool.callId)
}

/** Every awaiting call of `items` that `answers` answer, shown decided. */
export function withAnswers(items: ThreadItem[], answers: Answer[]): ThreadItem[] {
  if (answers.length === 0) return items
  const decide = (part: AssistantPart): AssistantPart => {
    if (part.type !== 'tool' || part.tool.status !== 'awaiting') return part
    const answer = answerFor(part.tool, answers)
    return answer ? { ...part, tool: decidedTool(part.tool, answer.decision) } : part
  }
  return items.map((item) => (item.kind === 'assistant' ? { ...item, parts: item.parts.map(decide) } : item))
}

/** The decisions in words, as the server stores them for the turn that resumes the run. */
export function answersSummary(answers: Answer[]): string {
  return answers
    .map(({ tool, decision }) => {
      if ('result' in decision) return `Supplied the result of ${tool.name}.`
      if (decision.approved) return `Approved ${tool.name}.`
      return decision.reason ? `Denied ${tool.name}: ${decision.reason}` : `Denied ${tool.name}.`
    })
    .join('\n')
}

/** A pasted result: its JSON value when it parses, else the text itself. */
export function readResult(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** A denial's reason as stored, or null when none was given. */
export function denialReason(tool: ToolView): string | null {
  const error = tool.error?.trim()
  return error && error !== 'Denied.' && error !== 'The tool call was denied.' ? error : null
}
