// Sending one chat message (or the decisions a paused run waits for): a multipart POST whose answer
// is read chunk by chunk as it streams.
import { errorFrom } from '../api/client'
import { apiUrl } from '../base'
import type { Decisions } from './approval'
import { parseChunk, type UIChunk } from './chunks'
import { readEventData } from './sse'

export interface ChatRequest {
  slug: string
  message: string
  files: File[]
  conversationId: string | null
  model: string | null
  signal: AbortSignal
  /** Answers to the calls the conversation waits on: the turn resumes that run (`message` empty). */
  decisions?: Decisions | null
  /** Values for the agent's deps_schema (none: the conversation's stored values). */
  deps?: Record<string, unknown> | null
  /** The scope a new conversation is created with (`type:id` labels); a continued one keeps its own. */
  chatAs?: { tenant?: string; actor?: string; subject?: string } | null
}

/** The `ai` SDK version the stream targets: 6 adds the tool approval chunks. */
export const SDK_VERSION = '6'

/** POST the message and yield each protocol chunk as it arrives. Throws ApiError for a 4xx/5xx. */
export async function* streamChat(request: ChatRequest): AsyncGenerator<UIChunk> {
  const form = new FormData()
  form.set('message', request.message)
  for (const file of request.files) form.append('attachments', file, file.name)
  if (request.conversationId) form.set('conversation_id', request.conversationId)
  if (request.model) form.set('model', request.model)
  if (request.decisions) form.set('decisions', JSON.stringify(request.decisions))
  if (request.deps) form.set('deps', JSON.stringify(request.deps))
  for (const [axis, label] of Object.entries(request.chatAs ?? {})) if (label) form.set(axis, label)
  form.set('sdk_version', SDK_VERSION)
  const response = await fetch(apiUrl(`/api/agents/${encodeURIComponent(request.slug)}/chat`), {
    method: 'POST',
    body: form,
    headers: { Accept: 'text/event-stream' },
    signal: request.signal,
  })
  if (!response.ok) throw await errorFrom(response)
  if (!response.body) return
  for await (const data of readEventData(response.body)) {
    const chunk = parseChunk(data)
    if (chunk) yield chunk
  }
}
