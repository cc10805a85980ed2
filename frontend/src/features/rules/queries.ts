// The Rules page's reads, each under one cache key (`rules:`…, invalidated after any rule changes,
// so an open preview follows the list).
import { useResource } from '@/lib/resource'
import { rulesApi } from './api'

/** The rules of `tenant` ('' for every tenant). */
export const useRules = (tenant: string) => {
  const qs = tenant ? new URLSearchParams({ tenant }).toString() : ''
  return useResource(`rules:list?${qs}`, () => rulesApi.list(new URLSearchParams(qs)))
}

/** The block a scope gets; `query` null asks nothing (no preview asked for yet). */
export const usePreview = (query: string | null) =>
  useResource(query === null ? null : `rules:preview?${query}`, () => rulesApi.preview(new URLSearchParams(query ?? '')))
