// A stored conversation (GET /api/conversations/{id}) as thread items.
import type { ReplayMessage, ReplayPart, ToolInvocation, Usage } from './api/types'
import { apiUrl } from './base'
import { providerErrorOf, type AssistantPart, type ThreadItem, type ToolView } from './thread'

/**
 * Stored usage is pydantic-ai's RunUsage (`output_reasoning_tokens`, ...); the stream's metadata
 * uses Synapse's names. Both become the stream's shape.
 */
export function normalizeUsage(raw: Record<string, unknown> | null | undefined, fallback?: { input?: number | null; output?: number | null }): Usage {
  const number = (...keys: string[]) => {
    for (const key of keys) if (typeof raw?.[key] === 'number') return raw[key] as number
    return undefined
  }
  return {
    input_tokens: number('input_tokens') ?? fallback?.input ?? 0,
    output_tokens: number('output_tokens') ?? fallback?.output ?? 0,
    cache_read_tokens: number('cache_read_tokens') ?? 0,
    cache_write_tokens: number('cache_write_tokens') ?? 0,
    reasoning_tokens: number('reasoning_tokens', 'output_reasoning_tokens') ?? 0,
    requests: number('requests'),
    tool_calls: number('tool_calls'),
  }
}

export function toolView(tool: ToolInvocation): ToolView {
  return {
    callId: tool.tool_call_id || tool.id || tool.name,
    invocationId: tool.id,
    truncated: Boolean(tool.truncated),
    name: tool.name,
    kind: tool.kind,
    status: tool.status,
    args: tool.arguments,
    result: tool.result,
    error: tool.error ?? null,
    durationMs: tool.duration_ms ?? null,
    providerStatus: tool.provider_status ?? null,
  }
}

function part(p: ReplayPart, index: number, messageId: string): AssistantPart | null {
  const id = `${messageId}-${index}`
  switch (p.type) {
    case 'text':
      return { type: 'text', id, text: p.text, streaming: false }
    case 'reasoning':
      return { type: 'reasoning', id, text: p.text, streaming: false }
    case 'tool':
      return { type: 'tool', id, tool: toolView(p.tool) }
    case 'native-tool':
      return { type: 'tool', id, tool: { ...toolView(p.tool), kind: 'native' } }
    case 'structured-output':
      return { type: 'structured-output', id, output: p.output }
    default:
      return null
  }
}

export function replayItems(messages: ReplayMessage[]): ThreadItem[] {
  return messages.map((message): ThreadItem => {
    switch (message.role) {
      case 'user':
        return {
          kind: 'user',
          id: message.id,
          text: message.content,
          attachments: (message.attachments ?? []).map((a) => ({
            name: a.name ?? 'attachment',
            mediaType: a.media_type ?? 'application/octet-stream',
            size: a.size ?? 0,
            url: apiUrl(a.url),
          })),
        }
      case 'assistant': {
        const parts = (message.parts ?? [])
          .map((p, i) => part(p, i, message.id))
          .filter((p): p is AssistantPart => p !== null)
        if (!parts.some((p) => p.type === 'text') && message.content && !parts.some((p) => p.type === 'structured-output'))
          parts.push({ type: 'text', id: `${message.id}-content`, text: message.content, streaming: false })
        const usage = normalizeUsage(message.usage as Record<string, unknown> | null | undefined, {
          input: message.input_tokens,
          output: message.output_tokens,
        })
        // A `failed` answer is shown with the error card that follows it; an `interrupted` one was stopped.
        const stopped = message.status === 'interrupted'
        return {
          kind: 'assistant',
          id: message.id,
          parts,
          streaming: false,
          stopped,
          meta: {
            model: message.meta?.model ?? null,
            provider: message.meta?.provider ?? null,
            usage,
            cost: message.cost ?? null,
            currency: 'USD',
            durationMs: message.duration_ms ?? null,
          },
        }
      }
      case 'error':
        return {
          kind: 'error',
          id: message.id,
          error: {
            className: message.details?.class ?? null,
            message: message.content,
            traceback: message.details?.traceback ?? null,
            recoverable: Boolean(message.details?.recoverable),
            provider: providerErrorOf(message.details?.provider),
            at: Date.parse(message.created_at) || null,
          },
        }
      case 'notice':
        return {
          kind: 'notice',
          id: message.id,
          noticeKind: message.meta?.kind ?? 'info',
          message: message.content,
          summary: typeof message.meta?.summary === 'string' ? message.meta.summary : null,
        }
    }
  })
}
