// The Workflows pages' reads, each under one cache key (`workflows:`…, invalidated after a change or
// a run). A run that has not finished is read again every second until it has.
import { usePolling } from '@/lib/polling'
import { useResource } from '@/lib/resource'
import { finished, workflowsApi } from './api'

export const useWorkflows = () => useResource('workflows:list', workflowsApi.list)
export const useWorkflow = (key: string) => useResource(`workflows:one:${key}`, () => workflowsApi.get(key))
export const useWorkflowVersions = (key: string) => useResource(`workflows:versions:${key}`, () => workflowsApi.versions(key))

export function useWorkflowRuns(key: string | null) {
  const runs = useResource(`workflows:runs:${key ?? ''}`, () => workflowsApi.runs(key))
  const live = runs.data?.runs.some((run) => !finished(run.status)) ?? false
  usePolling(live, runs.reload)
  return runs
}

export function useWorkflowRun(id: string) {
  const run = useResource(`workflows:run:${id}`, () => workflowsApi.runDetail(id))
  usePolling(run.data !== undefined && !finished(run.data.status), run.reload)
  return run
}
