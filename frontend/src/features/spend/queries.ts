// The Spend page's reads, each under one cache key (`spend:`…, invalidated after a limit changes).
import { spendApi, type LimitScope } from '@/lib/api/spend'
import { useResource } from '@/lib/resource'

export const useSpendReport = (query: URLSearchParams) => {
  const qs = query.toString()
  return useResource(`spend:report?${qs}`, () => spendApi.report(new URLSearchParams(qs)))
}

export const useLimits = (enabled = true) => useResource(enabled ? 'spend:limits' : null, spendApi.limits)

export const useOverruns = (query: URLSearchParams, enabled = true) => {
  const qs = query.toString()
  return useResource(enabled ? `spend:overruns?${qs}` : null, () => spendApi.overruns(new URLSearchParams(qs)))
}

/** What the limit form offers for `scope` (loaded only while the form is open). */
export const useLimitChoices = (scope: LimitScope, enabled = true) => useResource(enabled ? `spend:choices:${scope}` : null, () => spendApi.choices(scope))
