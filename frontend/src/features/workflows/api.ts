// The workflows API (docs/workflows.md), typed from schema.gen.ts (`npm run api-types`): versioned
// definitions, their validation, runs and each run's steps.
import { json, request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

type Schemas = components['schemas']

export type WorkflowSummary = Schemas['WorkflowSummary']
export type Workflow = Schemas['WorkflowOut']
export type WorkflowVersion = Schemas['WorkflowVersionOut']
export type WorkflowRun = Schemas['WorkflowRunOut']
export type WorkflowRunDetail = Schemas['WorkflowRunDetail']
export type WorkflowStep = Schemas['WorkflowStepOut']

const one = (key: string) => `/api/workflows/${encodeURIComponent(key)}`

export const workflowsApi = {
  list: () => request<Schemas['WorkflowList']>('/api/workflows'),
  get: (key: string) => request<Workflow>(one(key)),
  versions: (key: string) => request<Schemas['WorkflowVersionList']>(`${one(key)}/versions`),
  create: (body: { key: string; name: string; definition: unknown }) => request<Workflow>('/api/workflows', json('POST', body)),
  update: (key: string, body: { version: number; definition?: unknown; name?: string }) => request<Workflow>(one(key), json('PATCH', body)),
  validate: (definition: unknown) => request<Schemas['WorkflowValidation']>('/api/workflows/validate', json('POST', { definition })),
  run: (key: string, input: unknown) => request<WorkflowRun>(`${one(key)}/run`, json('POST', { input })),
  runs: (key: string | null) => request<Schemas['WorkflowRunList']>(`/api/workflow-runs${key ? `?${new URLSearchParams({ workflow: key })}` : ''}`),
  runDetail: (id: string) => request<WorkflowRunDetail>(`/api/workflow-runs/${encodeURIComponent(id)}`),
}

export const finished = (status: string): boolean => status === 'completed' || status === 'failed'
