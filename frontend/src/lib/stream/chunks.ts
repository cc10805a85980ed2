// The Vercel AI UI message stream chunks Synapse emits (docs/api.md), as the dashboard reads them.
import type { MessageMetadata } from '../api/types'
import type { ToolApprovalData } from './approval'

/** A turn's metadata as the stream sends it: `awaiting` lists the calls a paused run waits on. */
export type StreamMetadata = MessageMetadata & { awaiting?: string[] }

export type UIChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: StreamMetadata }
  | { type: 'finish'; finishReason?: string | null; messageMetadata?: StreamMetadata }
  | { type: 'message-metadata'; messageMetadata: StreamMetadata }
  | { type: 'abort'; reason?: string | null }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string; providerExecuted?: boolean | null }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | {
      type: 'tool-input-available'
      toolCallId: string
      toolName: string
      input: unknown
      providerExecuted?: boolean | null
    }
  | { type: 'tool-input-error'; toolCallId: string; toolName: string; input: unknown; errorText: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown; preliminary?: boolean | null }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'error'; errorText: string }
  | { type: 'source-url'; sourceId: string; url: string; title?: string | null }
  | { type: 'file'; url: string; mediaType: string }
  | { type: 'data-native-tool'; id?: string; data: NativeToolData }
  | { type: 'data-structured-output'; id?: string; data: { output: unknown } }
  | { type: 'data-notice'; id?: string; data: NoticeData }
  | { type: 'data-error'; id?: string; data: ErrorData }
  | { type: 'data-tool-timing'; id?: string; data: { tool_call_id: string; duration_ms: number } }
  | { type: 'data-tool-status'; id?: string; data: { tool_call_id: string; status: 'interrupted' } }
  | { type: 'data-tool-approval'; id?: string; data: ToolApprovalData }

export interface NativeToolData {
  tool_call_id: string
  name: string
  provider?: string | null
  status?: string | null
  args?: unknown
  result?: unknown
  duration_ms?: number | null
}

export interface NoticeData {
  kind?: string
  message: string
  [key: string]: unknown
}

export interface ErrorData {
  class?: string | null
  message?: string | null
  traceback?: string | null
  recoverable?: boolean | null
  provider?: Record<string, unknown> | null
}

const KNOWN = new Set<string>([
  'start', 'finish', 'message-metadata', 'abort', 'start-step', 'finish-step',
  'text-start', 'text-delta', 'text-end', 'reasoning-start', 'reasoning-delta', 'reasoning-end',
  'tool-input-start', 'tool-input-delta', 'tool-input-available', 'tool-input-error',
  'tool-output-available', 'tool-output-error', 'tool-output-denied', 'tool-approval-request', 'error', 'source-url', 'file',
  'data-native-tool', 'data-structured-output', 'data-notice', 'data-error', 'data-tool-timing', 'data-tool-status',
  'data-tool-approval',
])

/** Parse one event's data into a chunk the dashboard knows; anything else (or not JSON) is null. */
export function parseChunk(data: string): UIChunk | null {
  let value: unknown
  try {
    value = JSON.parse(data)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const type = (value as { type?: unknown }).type
  return typeof type === 'string' && KNOWN.has(type) ? (value as UIChunk) : null
}
