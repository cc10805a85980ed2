// The calls an approval card answers, each with the id the run knows it by. A live call has it; a
// stored call inside a thread is keyed by its row (the thread leaves `tool_call_id` out) and may
// carry only a preview of its arguments, so an awaiting one is read whole before it is decided.
import { api } from '@/lib/api/client'
import type { ToolInvocationFull } from '@/lib/api/types'
import { useResource } from '@/lib/resource'
import type { ToolView } from '@/lib/thread'

export interface PausedCall {
  /** The call as the thread shows it. */
  shown: ToolView
  /** The call with its tool call id and whole arguments, once known. */
  tool: ToolView
  /** False while its tool call id is still being read. */
  ready: boolean
}

function needsLookup(tool: ToolView): boolean {
  return tool.status === 'awaiting' && Boolean(tool.invocationId) && (tool.callId === tool.invocationId || Boolean(tool.truncated))
}

/** `tools` with their tool call ids, reading the stored ones that lack it; `error` when that failed. */
export function usePausedCalls(tools: ToolView[]): { calls: PausedCall[]; error: unknown } {
  const lookups = tools.filter(needsLookup)
  const ids = lookups.map((tool) => tool.invocationId ?? '')
  const key = ids.length ? `paused-calls:${ids.join(',')}` : null
  const whole = useResource<ToolInvocationFull[]>(key, () => Promise.all(ids.map((id) => api.toolInvocation(id))))
  const calls = tools.map((shown): PausedCall => {
    if (!needsLookup(shown)) return { shown, tool: shown, ready: true }
    const found = whole.data?.find((row) => row.id === shown.invocationId)
    if (!found) return { shown, tool: shown, ready: false }
    return { shown, tool: { ...shown, callId: found.tool_call_id, args: found.arguments, truncated: false }, ready: true }
  })
  return { calls, error: whole.error }
}
