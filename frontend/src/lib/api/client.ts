// Fetching JSON from the Synapse API, with its one error shape turned into ApiError.
import type {
  AgentInfo,
  AgentsResponse,
  ConversationDetail,
  ConversationRow,
  ConversationsResponse,
  DeleteResult,
  Extensions,
  Health,
  ModelsResponse,
  ModelToolsAnswer,
  ToolInvocationFull,
} from './types'

import { apiUrl } from '../base'

/** One invalid input of a 422 answer: where (`body.temperature`) and what is wrong. */
export interface FieldError {
  location: string
  message: string
}

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly fields: FieldError[]

  constructor(status: number, code: string, message: string, fields: FieldError[] = []) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code
    this.fields = fields
  }
}

function fieldsOf(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((field: { location?: unknown; message?: unknown } | null) =>
    field && typeof field.location === 'string' && typeof field.message === 'string' ? [{ location: field.location, message: field.message }] : [],
  )
}

/** Turn a non-OK response into an ApiError carrying the API's `{error: {code, message, fields}}`. */
export async function errorFrom(response: Response): Promise<ApiError> {
  let code = 'http_error'
  let message = `${response.status} ${response.statusText}`.trim()
  let fields: FieldError[] = []
  try {
    const body: unknown = await response.json()
    const error = (body as { error?: { code?: unknown; message?: unknown; fields?: unknown } } | null)?.error
    if (error && typeof error.message === 'string') message = error.message
    if (error && typeof error.code === 'string') code = error.code
    fields = fieldsOf(error?.fields)
  } catch {
    // Not JSON (a proxy's page, say): keep the status line.
  }
  return new ApiError(response.status, code, message, fields)
}

export async function request<T>(path: string, init?: RequestInit): Promise<T> {
  let response: Response
  try {
    response = await fetch(apiUrl(path), { ...init, headers: { Accept: 'application/json', ...init?.headers } })
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause
    throw new ApiError(0, 'network', 'Synapse is not answering. Is `synapse serve` still running?')
  }
  if (!response.ok) throw await errorFrom(response)
  return (await response.json()) as T
}

export function json(method: string, body: unknown): RequestInit {
  return { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
}

const enc = encodeURIComponent

export const api = {
  health: () => request<Health>('/api/health'),
  extensions: () => request<Extensions>('/api/extensions'),
  agents: () => request<AgentsResponse>('/api/agents'),
  agent: (slug: string) => request<AgentInfo>(`/api/agents/${enc(slug)}`),
  modelTools: (slug: string) => request<ModelToolsAnswer>(`/api/agents/${enc(slug)}/model-tools`),
  models: (slug: string) => request<ModelsResponse>(`/api/agents/${enc(slug)}/models`),
  conversations: (query: URLSearchParams) => {
    const qs = query.toString()
    return request<ConversationsResponse>(`/api/conversations${qs ? `?${qs}` : ''}`)
  },
  conversation: (id: string) => request<ConversationDetail>(`/api/conversations/${enc(id)}`),
  rename: (id: string, title: string) =>
    request<ConversationRow>(`/api/conversations/${enc(id)}`, json('PATCH', { title })),
  /** A new conversation holding copies of every row before the user message `messageId`. */
  fork: (id: string, messageId: string) =>
    request<ConversationRow>(`/api/conversations/${enc(id)}/fork`, json('POST', { message_id: messageId })),
  toolInvocation: (id: string) => request<ToolInvocationFull>(`/api/tool-invocations/${enc(id)}`),
  remove: (id: string) => request<DeleteResult>(`/api/conversations/${enc(id)}`, { method: 'DELETE' }),
}
