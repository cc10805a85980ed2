// The memories API, the vector memories API and the privacy view of one person, typed from the
// app's OpenAPI document (schema.gen.ts). Axes are `type:id` text; a null subject is the tenant as a
// whole, a null `applies_to` everyone.
import { json, request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

type Schemas = components['schemas']

export type Memory = Schemas['MemoryOut']
export type MemorySource = Memory['source']
export type MemoryStatus = Schemas['MemoryStatus']
export type VectorStore = MemoryStatus['vector_store']
export type MemoryPage = Schemas['MemoryPage']
export type MemoryInput = Schemas['MemoryIn']
export type MemoryPatch = Schemas['MemoryPatch']
export type SearchResult = Schemas['SearchResult']
export type SearchAnswer = Schemas['SearchAnswer']
export type Sharing = Schemas['Sharing']
export type VectorMemory = Schemas['VectorMemoryOut']
export type VectorScope = VectorMemory['scope']
export type VectorSourceType = VectorMemory['source_type']
export type VectorMemoryPage = Schemas['VectorMemoryPage']
export type PersonMemory = Schemas['PersonMemoryOut']
export type PersonData = Schemas['PersonDataOut']
export type PersonForgotten = Schemas['PersonForgottenOut']

const enc = encodeURIComponent
const withQuery = (path: string, query: URLSearchParams) => {
  const qs = query.toString()
  return qs ? `${path}?${qs}` : path
}
const one = (id: string) => `/api/memories/${enc(id)}`
const person = (actor: string) => `/api/memories/people/${enc(actor)}`

export const memoriesApi = {
  status: () => request<MemoryStatus>('/api/memories/status'),
  list: (query: URLSearchParams) => request<MemoryPage>(withQuery('/api/memories', query)),
  create: (body: MemoryInput) => request<Memory>('/api/memories', json('POST', body)),
  search: (query: URLSearchParams) => request<SearchAnswer>(withQuery('/api/memories/search', query)),
  get: (id: string) => request<Memory>(one(id)),
  update: (id: string, body: MemoryPatch) => request<Memory>(one(id), json('PATCH', body)),
  remove: (id: string) => request<{ deleted: string }>(one(id), { method: 'DELETE' }),
  ofPerson: (actor: string, query: URLSearchParams) => request<{ memories: Memory[] }>(withQuery(person(actor), query)),
  forgetPerson: (actor: string, query: URLSearchParams) => request<{ deleted: number }>(withQuery(person(actor), query), { method: 'DELETE' }),
  sharing: (actor: string) => request<Sharing>(`${person(actor)}/sharing`),
  setSharing: (actor: string, share_memories: boolean | null) => request<Sharing>(`${person(actor)}/sharing`, json('PUT', { share_memories })),
}

const tenantOnly = (tenant: string) => new URLSearchParams({ tenant })

export const vectorMemoriesApi = {
  list: (query: URLSearchParams) => request<VectorMemoryPage>(withQuery('/api/vector-memories', query)),
  /** Only if it is `tenant`'s. */
  remove: (id: string, tenant: string) => request<{ deleted: string }>(withQuery(`/api/vector-memories/${enc(id)}`, tenantOnly(tenant)), { method: 'DELETE' }),
}

/** Everything stored about one person in one tenant (the ledger's rows are counted, never deleted). */
export const personDataApi = {
  get: (person: string, tenant: string) => request<PersonData>(withQuery(`/api/people/${enc(person)}/data`, tenantOnly(tenant))),
  forget: (person: string, tenant: string) => request<PersonForgotten>(withQuery(`/api/people/${enc(person)}/data`, tenantOnly(tenant)), { method: 'DELETE' }),
}
