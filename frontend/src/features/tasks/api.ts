// The task API: standing agents, their runs (tasks) with their logs, and schedule previews, typed
// from schema.gen.ts (`npm run api-types`). Amounts are decimal strings in the reference currency
// (null: unpriced), timestamps ISO 8601 in UTC, scopes `type:id` text.
import { json, request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

/** A task's status: queued and running ones still change, the others are final. */
export const TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]

type Schemas = components['schemas']

/** One run as lists show it: `trigger` is `schedule`, `event` or `manual`; `fires` counts the firings it stands for. */
export type TaskSummary = Schemas['TaskSummary']
/** One step of a run: `started`, `notice`, `model_response`, `tool_call`, `tool_result`, `output`, `error`, `finished`. */
export type TaskLogEntry = Schemas['TaskLogEntry']
/** One run with its instruction, event context, output and log. */
export type TaskDetail = Schemas['TaskDetail']
/** A page of runs; `next_before` continues it (null: the last page). */
export type TaskPage = Schemas['TaskPage']
/** A standing agent with its schedule in words (null without one), its next run and its last five runs. */
export type StandingAgent = Schemas['StandingAgentOut']
export type StandingAgentList = Schemas['StandingAgentList']
/** A standing agent to create (`cron` null or left out: no schedule). */
export type StandingInput = Schemas['StandingInput']
/** What to change (fields left out stay; `cron: null` removes the schedule, `tenant: null` the tenant). */
export type StandingPatch = Schemas['StandingPatch']
export type RunQueued = Schemas['RunQueued']
/** A cron expression checked: its words and its next three fire times. */
export type SchedulePreview = Schemas['SchedulePreview']

const enc = encodeURIComponent
const one = (id: string) => `/api/standing-agents/${enc(id)}`

/** Resolves once done, whether the answer has a body or none (204). */
const ignoreEmpty = (error: unknown) => {
  if (!(error instanceof SyntaxError)) throw error
}

export const tasksApi = {
  standing: () => request<StandingAgentList>('/api/standing-agents'),
  create: (body: StandingInput) => request<StandingAgent>('/api/standing-agents', json('POST', body)),
  update: (id: string, body: StandingPatch) => request<StandingAgent>(one(id), json('PATCH', body)),
  remove: (id: string) => request<unknown>(one(id), { method: 'DELETE' }).then(() => undefined, ignoreEmpty),
  runNow: (id: string) => request<RunQueued>(`${one(id)}/run`, { method: 'POST' }),
  pause: (id: string) => request<StandingAgent>(`${one(id)}/pause`, { method: 'POST' }),
  resume: (id: string) => request<StandingAgent>(`${one(id)}/resume`, { method: 'POST' }),
  tasks: (query: URLSearchParams) => {
    const qs = query.toString()
    return request<TaskPage>(`/api/tasks${qs ? `?${qs}` : ''}`)
  },
  task: (id: string) => request<TaskDetail>(`/api/tasks/${enc(id)}`),
  cancel: (id: string) => request<TaskSummary>(`/api/tasks/${enc(id)}/cancel`, { method: 'POST' }),
  preview: (cron: string, timezone: string, signal?: AbortSignal) =>
    request<SchedulePreview>(`/api/schedules/preview?${new URLSearchParams({ cron, timezone }).toString()}`, { signal }),
}
