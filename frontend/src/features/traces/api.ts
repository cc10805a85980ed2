// The trace API: roots (newest first, paged with `next_before`), one tree of runs, model calls and
// tool calls, and one model call's debug log. Typed from schema.gen.ts (`npm run api-types`).
// Amounts are decimal strings in the reference currency (null: unpriced), timestamps ISO 8601 in
// UTC, durations in milliseconds.
import { request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

type Schemas = components['schemas']

/** Where a run came from: `code`, `config`, `ephemeral`, `workflow` or `direct`. */
export const ORIGINS = ['code', 'config', 'ephemeral', 'workflow', 'direct'] as const
export type Origin = (typeof ORIGINS)[number]

/** A root run as the Traces page lists it. */
export type TraceRoot = Schemas['TraceRoot']
export type TracePage = Schemas['TracePage']
/** A run, a model call or a tool call, with what ran inside it (`children`, by start time). */
export type TraceNode = Schemas['TraceNode']
export type TraceTree = Schemas['TraceTree']
/** One model call's debug log: `data` holds the request, the history sent and the turns back. */
export type ModelCall = Schemas['ModelCallDetail']

const enc = encodeURIComponent

export const tracesApi = {
  roots: (query: URLSearchParams) => {
    const qs = query.toString()
    return request<TracePage>(`/api/traces${qs ? `?${qs}` : ''}`)
  },
  tree: (runId: string) => request<TraceTree>(`/api/traces/${enc(runId)}`),
  call: (id: string) => request<ModelCall>(`/api/traces/calls/${enc(id)}`),
  /** The root of the turn that wrote assistant message `messageId`; null when it was not traced. */
  ofMessage: async (messageId: string): Promise<TraceRoot | null> => {
    const page = await request<TracePage>(`/api/traces?${new URLSearchParams({ message_id: messageId, limit: '1' }).toString()}`)
    return page.roots[0] ?? null
  },
}
