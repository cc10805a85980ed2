// The Memory page's reads, each under one cache key (`memories:`…, all invalidated after any
// memory or vector memory changes, so every list on screen, the search and the count follow).
import { useResource } from '@/lib/resource'
import { memoriesApi, personDataApi, vectorMemoriesApi } from './api'

export const PAGE_SIZE = 50

export const useMemoryStatus = () => useResource('memories:status', memoriesApi.status)

/** One page of the memories `query` selects (`cursor` null: the first); `query` null asks nothing. */
export const useMemoryPage = (query: string | null, cursor: string | null) => {
  const params = new URLSearchParams(query ?? '')
  if (cursor !== null) params.set('cursor', cursor)
  params.set('limit', String(PAGE_SIZE))
  const qs = params.toString()
  return useResource(query === null ? null : `memories:list?${qs}`, () => memoriesApi.list(new URLSearchParams(qs)))
}

/** The ranked results of a search; `query` null asks nothing (no search yet). */
export const useMemorySearch = (query: string | null) =>
  useResource(query === null ? null : `memories:search?${query}`, () => memoriesApi.search(new URLSearchParams(query ?? '')))

/** Everything that applies to `actor` (in `tenant`, or every tenant when ''); `actor` '' asks nothing. */
export const usePersonMemories = (actor: string, tenant: string) => {
  const qs = tenant ? new URLSearchParams({ tenant }).toString() : ''
  return useResource(actor ? `memories:people:${actor}?${qs}` : null, () => memoriesApi.ofPerson(actor, new URLSearchParams(qs)))
}

export const sharingKey = (actor: string) => `memories:sharing:${actor}`

export const useSharing = (actor: string) => useResource(actor ? sharingKey(actor) : null, () => memoriesApi.sharing(actor))

/** Everything stored about `person` in `tenant`; either '' asks nothing. */
export const usePersonData = (person: string, tenant: string) =>
  useResource(person && tenant ? `memories:person-data:${person}?${new URLSearchParams({ tenant })}` : null, () => personDataApi.get(person, tenant))

/** One page of the vector memories `query` selects (`cursor` null: the first); `query` null asks nothing. */
export const useVectorMemoryPage = (query: string | null, cursor: string | null) => {
  const params = new URLSearchParams(query ?? '')
  if (cursor !== null) params.set('cursor', cursor)
  params.set('limit', String(PAGE_SIZE))
  const qs = params.toString()
  return useResource(query === null ? null : `memories:vector?${qs}`, () => vectorMemoriesApi.list(new URLSearchParams(qs)))
}
