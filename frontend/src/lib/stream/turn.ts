// One assistant turn assembled from stream chunks. A pure reducer: (turn, chunk) → next turn.
import { providerErrorOf, type AssistantPart, type ErrorView, type ToolView } from '../thread'
import { isPauseKind, type ToolApprovalData, type ToolStatus } from './approval'
import type { NativeToolData, StreamMetadata, UIChunk } from './chunks'

export type TurnStatus = 'streaming' | 'done' | 'error' | 'aborted'

export interface Turn {
  status: TurnStatus
  parts: AssistantPart[]
  metadata: StreamMetadata
  finishReason: string | null
  /** Details of the last `data-error`, waiting for the `error` chunk that follows it. */
  pendingError: ErrorView | null
}

export const emptyTurn = (): Turn => ({
  status: 'streaming',
  parts: [],
  metadata: {},
  finishReason: null,
  pendingError: null,
})

const NATIVE_SUCCESS = new Set(['success', 'completed', 'complete', 'result_received', 'done'])
const NATIVE_ERROR = new Set(['error', 'failed', 'failure', 'incomplete', 'cancelled'])

/** Map a provider's own word for a native tool's state onto Synapse's; unknown means in flight. */
export function nativeStatus(raw: string | null | undefined): ToolStatus {
  const value = (raw ?? '').toLowerCase()
  if (NATIVE_SUCCESS.has(value)) return 'success'
  if (NATIVE_ERROR.has(value)) return 'error'
  if (value === 'interrupted') return 'interrupted'
  return 'pending'
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function mergeMeta(turn: Turn, metadata: StreamMetadata | undefined): Turn {
  return metadata ? { ...turn, metadata: { ...turn.metadata, ...metadata } } : turn
}

function updatePart<P extends AssistantPart>(
  turn: Turn,
  match: (part: AssistantPart) => part is P,
  update: (part: P) => AssistantPart,
): Turn | null {
  for (let i = turn.parts.length - 1; i >= 0; i--) {
    const part = turn.parts[i]!
    if (match(part)) {
      const parts = turn.parts.slice()
      parts[i] = update(part)
      return { ...turn, parts }
    }
  }
  return null
}

const append = (turn: Turn, part: AssistantPart): Turn => ({ ...turn, parts: [...turn.parts, part] })

function isText(id: string, type: 'text' | 'reasoning') {
  return (part: AssistantPart): part is Extract<AssistantPart, { type: 'text' | 'reasoning' }> =>
    part.type === type && part.id === id
}

function isTool(callId: string) {
  return (part: AssistantPart): part is Extract<AssistantPart, { type: 'tool' }> =>
    part.type === 'tool' && part.tool.callId === callId
}

function streamText(turn: Turn, type: 'text' | 'reasoning', id: string, delta: string): Turn {
  return (
    updatePart(turn, isText(id, type), (part) => ({ ...part, text: part.text + delta })) ??
    append(turn, { type, id, text: delta, streaming: true })
  )
}

function endText(turn: Turn, type: 'text' | 'reasoning', id: string): Turn {
  return updatePart(turn, isText(id, type), (part) => ({ ...part, streaming: false })) ?? turn
}

function upsertTool(turn: Turn, callId: string, now: number, change: (tool: ToolView) => ToolView, name = ''): Turn {
  const updated = updatePart(turn, isTool(callId), (part) => ({ ...part, tool: change(part.tool) }))
  if (updated) return updated
  const fresh: ToolView = {
    callId,
    name,
    kind: 'function',
    status: 'pending',
    args: undefined,
    result: undefined,
    error: null,
    durationMs: null,
    startedAt: now,
  }
  return append(turn, { type: 'tool', id: `tool-${callId}`, tool: change(fresh) })
}

function finished(tool: ToolView, now: number): number | null {
  return tool.durationMs ?? (tool.startedAt === undefined ? null : Math.max(0, Math.round(now - tool.startedAt)))
}

function nativeTool(turn: Turn, data: NativeToolData, now: number): Turn {
  const status = nativeStatus(data.status)
  return upsertTool(
    turn,
    data.tool_call_id,
    now,
    (tool) => {
      const next: ToolView = {
        ...tool,
        name: data.name || tool.name,
        kind: 'native',
        status,
        provider: data.provider ?? tool.provider ?? null,
        providerStatus: data.status ?? null,
        args: data.args !== undefined && data.args !== null ? data.args : tool.args,
        result: data.result !== undefined && data.result !== null ? data.result : tool.result,
        durationMs: data.duration_ms ?? tool.durationMs,
      }
      if (status === 'error' && !next.error) next.error = typeof data.result === 'string' ? data.result : 'The provider reported a failure.'
      if (status !== 'pending') next.durationMs = finished(next, now)
      return next
    },
    data.name,
  )
}

/** A call the run paused on (`data-tool-approval`): it waits for a decision, no longer runs. */
function pausedTool(turn: Turn, data: ToolApprovalData, now: number): Turn {
  if (typeof data?.tool_call_id !== 'string') return turn
  return upsertTool(
    turn,
    data.tool_call_id,
    now,
    (tool) => ({
      ...tool,
      name: data.tool_name || tool.name,
      args: data.args !== undefined ? data.args : tool.args,
      argsText: undefined,
      status: 'awaiting',
      providerStatus: isPauseKind(data.kind) ? data.kind : 'approval',
      durationMs: null,
    }),
    data.tool_name,
  )
}

/** Calls still shown running that the run says wait for a decision (`tool-approval-request`, `awaiting`). */
function markAwaiting(turn: Turn, callIds: readonly string[]): Turn {
  let next = turn
  for (const callId of callIds) {
    next =
      updatePart(next, isTool(callId), (part) =>
        part.tool.status === 'pending'
          ? { ...part, tool: { ...part.tool, status: 'awaiting', providerStatus: isPauseKind(part.tool.providerStatus) ? part.tool.providerStatus : 'approval', durationMs: null } }
          : part,
      ) ?? next
  }
  return next
}

function closeTools(turn: Turn, status: ToolStatus, error: string | null, now: number): Turn {
  if (!turn.parts.some((part) => part.type === 'tool' && part.tool.status === 'pending')) return turn
  return {
    ...turn,
    parts: turn.parts.map((part) =>
      part.type === 'tool' && part.tool.status === 'pending'
        ? { ...part, tool: { ...part.tool, status, error: part.tool.error ?? error, durationMs: finished(part.tool, now) } }
        : part,
    ),
  }
}

function closeStreaming(turn: Turn): Turn {
  return {
    ...turn,
    parts: turn.parts.map((part) =>
      (part.type === 'text' || part.type === 'reasoning') && part.streaming ? { ...part, streaming: false } : part,
    ),
  }
}

/** Apply one chunk. `now` is a millisecond clock (performance.now()) for tool durations. */
export function applyChunk(turn: Turn, chunk: UIChunk, now: number): Turn {
  switch (chunk.type) {
    case 'start':
    case 'message-metadata':
      return mergeMeta(turn, chunk.messageMetadata)
    case 'finish': {
      const awaiting = chunk.messageMetadata?.awaiting
      let next = closeStreaming(mergeMeta(Array.isArray(awaiting) ? markAwaiting(turn, awaiting) : turn, chunk.messageMetadata))
      if (next.pendingError) {
        // A `data-error` whose `error` chunk never came still deserves its card.
        const error = next.pendingError
        next = append({ ...next, pendingError: null }, { type: 'error', id: `error-${next.parts.length}`, error })
        return closeTools({ ...next, status: 'error', finishReason: chunk.finishReason ?? null }, 'error', error.message, now)
      }
      const status: TurnStatus = turn.status === 'streaming' ? 'done' : turn.status
      return closeTools({ ...next, status, finishReason: chunk.finishReason ?? null }, 'interrupted', null, now)
    }
    case 'abort':
      return closeTools(closeStreaming({ ...turn, status: 'aborted' }), 'interrupted', null, now)
    case 'start-step':
    case 'finish-step':
      return turn
    case 'text-start':
      return updatePart(turn, isText(chunk.id, 'text'), (p) => p) ?? append(turn, { type: 'text', id: chunk.id, text: '', streaming: true })
    case 'text-delta':
      return streamText(turn, 'text', chunk.id, chunk.delta)
    case 'text-end':
      return endText(turn, 'text', chunk.id)
    case 'reasoning-start':
      return (
        updatePart(turn, isText(chunk.id, 'reasoning'), (p) => p) ??
        append(turn, { type: 'reasoning', id: chunk.id, text: '', streaming: true })
      )
    case 'reasoning-delta':
      return streamText(turn, 'reasoning', chunk.id, chunk.delta)
    case 'reasoning-end':
      return endText(turn, 'reasoning', chunk.id)
    case 'tool-input-start':
      return upsertTool(
        turn,
        chunk.toolCallId,
        now,
        (tool) => ({ ...tool, name: chunk.toolName, kind: chunk.providerExecuted ? 'native' : tool.kind, argsText: '' }),
        chunk.toolName,
      )
    case 'tool-input-delta':
      return upsertTool(turn, chunk.toolCallId, now, (tool) => ({
        ...tool,
        argsText: (tool.argsText ?? '') + chunk.inputTextDelta,
      }))
    case 'tool-input-available':
      return upsertTool(
        turn,
        chunk.toolCallId,
        now,
        (tool) => ({
          ...tool,
          name: chunk.toolName,
          kind: chunk.providerExecuted ? 'native' : tool.kind,
          args: typeof chunk.input === 'string' ? parseArgs(chunk.input) : chunk.input,
          argsText: undefined,
        }),
        chunk.toolName,
      )
    case 'tool-input-error':
      return upsertTool(
        turn,
        chunk.toolCallId,
        now,
        (tool) => ({ ...tool, name: chunk.toolName, args: chunk.input, status: 'error', error: chunk.errorText, durationMs: finished(tool, now) }),
        chunk.toolName,
      )
    case 'tool-output-available':
      return upsertTool(turn, chunk.toolCallId, now, (tool) =>
        chunk.preliminary
          ? { ...tool, result: chunk.output }
          : { ...tool, status: 'success', result: chunk.output, durationMs: finished(tool, now) },
      )
    case 'tool-output-error':
      return upsertTool(turn, chunk.toolCallId, now, (tool) => ({
        ...tool,
        status: 'error',
        error: chunk.errorText,
        durationMs: finished(tool, now),
      }))
    case 'tool-output-denied':
      return upsertTool(turn, chunk.toolCallId, now, (tool) => ({
        ...tool,
        status: 'error',
        error: 'The tool call was denied.',
        durationMs: finished(tool, now),
      }))
    case 'tool-approval-request':
      return markAwaiting(turn, [chunk.toolCallId])
    case 'data-tool-approval':
      return pausedTool(turn, chunk.data, now)
    case 'data-native-tool':
      return nativeTool(turn, chunk.data, now)
    case 'data-tool-status':
      // A call the failure cancelled: stored as interrupted, whatever the closing chunk said.
      return updatePart(turn, isTool(chunk.data.tool_call_id), (part) => ({ ...part, tool: { ...part.tool, status: 'interrupted' } })) ?? turn
    case 'data-tool-timing':
      // The duration as stored (execution start to result): what a reload of the turn shows.
      return updatePart(turn, isTool(chunk.data.tool_call_id), (part) => ({ ...part, tool: { ...part.tool, durationMs: chunk.data.duration_ms } })) ?? turn
    case 'source-url':
      return turn.parts.some((p) => p.type === 'source' && p.url === chunk.url)
        ? turn
        : append(turn, { type: 'source', id: `source-${chunk.sourceId}`, url: chunk.url, title: chunk.title ?? null })
    case 'file':
      return append(turn, { type: 'file', id: `file-${turn.parts.length}`, url: chunk.url, mediaType: chunk.mediaType })
    case 'data-structured-output': {
      // The tool call just before the structured output is the output tool that produced it.
      const last = turn.parts[turn.parts.length - 1]
      const marked =
        last?.type === 'tool' && last.tool.kind === 'function'
          ? { ...turn, parts: [...turn.parts.slice(0, -1), { ...last, tool: { ...last.tool, kind: 'output' as const } }] }
          : turn
      return append(marked, { type: 'structured-output', id: `output-${turn.parts.length}`, output: chunk.data.output })
    }
    case 'data-notice':
      return append(turn, {
        type: 'notice',
        id: `notice-${turn.parts.length}`,
        noticeKind: chunk.data.kind ?? 'info',
        message: chunk.data.message,
        summary: typeof chunk.data.summary === 'string' ? chunk.data.summary : null,
      })
    case 'data-error': {
      const error: ErrorView = {
        className: chunk.data.class ?? null,
        message: chunk.data.message ?? '',
        traceback: chunk.data.traceback ?? null,
        recoverable: Boolean(chunk.data.recoverable),
        provider: providerErrorOf(chunk.data.provider),
        at: Date.now(),
      }
      return { ...turn, pendingError: error }
    }
    case 'error': {
      const error: ErrorView = turn.pendingError
        ? { ...turn.pendingError, message: turn.pendingError.message || chunk.errorText }
        : { className: null, message: chunk.errorText, traceback: null, recoverable: false }
      const next = closeStreaming(append({ ...turn, pendingError: null, status: 'error' }, { type: 'error', id: `error-${turn.parts.length}`, error }))
      return closeTools(next, 'error', error.message, now)
    }
  }
}

/** The turn after the connection dropped or was stopped before `finish`. */
export function interruptTurn(turn: Turn, now: number, reason: 'aborted' | 'error', message?: string): Turn {
  if (turn.status !== 'streaming') return turn
  let next = closeTools(closeStreaming({ ...turn, status: reason }), 'interrupted', null, now)
  if (reason === 'error') {
    next = append(next, {
      type: 'error',
      id: `error-${next.parts.length}`,
      error: { className: 'ConnectionError', message: message ?? 'The stream ended unexpectedly.', traceback: null, recoverable: true },
    })
  }
  return next
}
