// The Evals pages' reads, each under one cache key (`evals:`…, invalidated after a dataset or a run
// changes). A run that has not ended is read again every second until it has.
import { usePolling } from '@/lib/polling'
import { useResource } from '@/lib/resource'
import { ended, evalsApi } from './api'

export const useDatasets = () => useResource('evals:datasets', evalsApi.datasets)

/** The evaluators a case may name: pydantic-evals' own, Synapse's and the project's. */
export const useEvaluators = () => useResource('evals:evaluators', evalsApi.evaluators)

export const useDataset = (key: string) => useResource(`evals:dataset:${key}`, () => evalsApi.dataset(key))

export const useVersions = (key: string) => useResource(`evals:versions:${key}`, () => evalsApi.versions(key))

/** The runs of `dataset` (null: every dataset's), read again while one of them runs. */
export function useRuns(dataset: string | null) {
  const runs = useResource(`evals:runs:${dataset ?? ''}`, () => evalsApi.runs(dataset))
  const live = runs.data?.runs.some((run) => !ended(run.status)) ?? false
  usePolling(live, runs.reload)
  return runs
}

/** One run with its cases, read again until it ends. */
export function useRun(id: string) {
  const run = useResource(`evals:run:${id}`, () => evalsApi.run(id))
  usePolling(run.data !== undefined && !ended(run.data.status), run.reload)
  return run
}

export const useComparison = (before: string, after: string) =>
  useResource(before && after ? `evals:compare:${before}:${after}` : null, () => evalsApi.compare(before, after))
