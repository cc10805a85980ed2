// The evals API (docs/evals.md), typed from schema.gen.ts (`npm run api-types`): datasets with their
// versions, a case saved from a stored turn, runs (one model, or several side by side) and the
// comparison of two runs.
import { json, request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

type Schemas = components['schemas']

export type DatasetSummary = Schemas['DatasetSummary']
export type Dataset = Schemas['DatasetOut']
export type DatasetVersion = Schemas['DatasetVersionOut']
export type CaseFromMessage = Schemas['CaseFromMessageIn']
export type Run = Schemas['RunOut']
export type RunDetail = Schemas['RunDetail']
export type CaseResult = Schemas['CaseResultOut']
export type Comparison = Schemas['Comparison']
export type CaseComparison = Schemas['CaseComparison']
export type RunsRequest = Schemas['RunsIn']
export type EvaluatorInfo = Schemas['EvaluatorOut']

const dataset = (key: string) => `/api/evals/datasets/${encodeURIComponent(key)}`
const run = (id: string) => `/api/evals/runs/${encodeURIComponent(id)}`

export const evalsApi = {
  datasets: () => request<Schemas['DatasetList']>('/api/evals/datasets'),
  evaluators: () => request<Schemas['EvaluatorList']>('/api/evals/evaluators'),
  dataset: (key: string) => request<Dataset>(dataset(key)),
  versions: (key: string) => request<Schemas['DatasetVersionList']>(`${dataset(key)}/versions`),
  create: (body: { key: string; name: string; description?: string | null }) => request<Dataset>('/api/evals/datasets', json('POST', body)),
  remove: (key: string) => request<Schemas['DatasetDeleted']>(dataset(key), { method: 'DELETE' }),
  caseFromMessage: (key: string, body: CaseFromMessage) => request<Dataset>(`${dataset(key)}/cases/from-message`, json('POST', body)),
  runs: (datasetKey: string | null) => request<Schemas['RunList']>(`/api/evals/runs${datasetKey ? `?${new URLSearchParams({ dataset: datasetKey })}` : ''}`),
  run: (id: string) => request<RunDetail>(run(id)),
  start: (body: RunsRequest) => request<Schemas['RunList']>('/api/evals/runs/side-by-side', json('POST', body)),
  stop: (id: string) => request<Run>(`${run(id)}/stop`, { method: 'POST' }),
  compare: (before: string, after: string) => request<Comparison>(`/api/evals/runs/compare?${new URLSearchParams({ before, after })}`),
}

/** Whether a run has ended (nothing about it changes any more). */
export const ended = (status: string): boolean => status === 'succeeded' || status === 'failed' || status === 'cancelled'
