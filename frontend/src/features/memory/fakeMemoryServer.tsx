// For the Memory page's tests: a fake server that answers like the real one (memories and vector
// memories kept in memory, listed newest first a page at a time, 422 naming the field on a bad
// label, people's sharing choices, everything stored about a person and its deletion with the ledger
// kept), recording every call.
import { render } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { Memory, MemoryStatus, SearchResult, VectorMemory } from './api'
import MemoryPage from './MemoryPage'

const LABEL = /^[a-z_]+:\S+$/

export interface Call {
  method: string
  /** As sent: an actor in it stays URL-encoded. */
  path: string
  query: URLSearchParams
  body?: Record<string, unknown>
}

export interface FakeServer {
  memories: Memory[]
  status: MemoryStatus
  sharing: Record<string, boolean | null>
  vectorMemories: VectorMemory[]
  /** Ledger rows naming a person, by `tenant person`: counted, never deleted. */
  ledgerRows: Record<string, number>
  calls: Call[]
}

export const LEDGER_KEPT = 'The ledger (llm_calls) keeps its rows naming this person: they are the books (tokens and costs, never what was said) and are never deleted.'

/** A vector memory created `minute` minutes into the day (later is newer). */
export function vectorMemory(over: Partial<VectorMemory> & Pick<VectorMemory, 'id' | 'content'>, minute = 0): VectorMemory {
  return {
    tenant: 'org:acme',
    person: 'user:42',
    scope: 'user',
    conversation_id: null,
    source_type: 'manual',
    meta: {},
    embedder: 'openai:text-embedding-3-small',
    dimensions: 1536,
    created_at: new Date(Date.UTC(2026, 4, 1, 0, minute)).toISOString(),
    ...over,
  }
}

/** A memory created `minute` minutes into the day (later is newer). */
export function memory(over: Partial<Memory> & Pick<Memory, 'id' | 'content'>, minute = 0): Memory {
  const stamp = new Date(Date.UTC(2026, 4, 1, 0, minute)).toISOString()
  return {
    tenant: 'org:acme',
    subject: null,
    applies_to: null,
    source: 'manual',
    created_by: null,
    agent_key: null,
    conversation_id: null,
    source_message_ids: [],
    embedded: false,
    created_at: stamp,
    updated_at: stamp,
    ...over,
  }
}

const invalid = (location: string, message: string) =>
  Response.json({ error: { code: 'invalid_request', message: `${location.split('.')[1]}: ${message}`, fields: [{ location, message }] } }, { status: 422 })

function badLabel(values: Record<string, unknown>, where: 'body' | 'query' | 'path'): Response | null {
  for (const name of ['tenant', 'subject', 'applies_to', 'actor', 'person']) {
    const value = values[name]
    if (typeof value === 'string' && value !== '' && !LABEL.test(value)) return invalid(`${where}.${name}`, `expected 'type:id', got '${value}'.`)
  }
  return null
}

const required = (name: string) => invalid(`query.${name}`, 'Field required')
const axisMatches = (value: string | null, wanted: string | null) => wanted === null || value === (wanted === '' ? null : wanted)
const newestFirst = (list: Memory[]) => [...list].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))

function list(server: FakeServer, query: URLSearchParams): Response {
  const refused = badLabel(Object.fromEntries(query), 'query')
  if (refused) return refused
  const found = newestFirst(server.memories).filter(
    (m) =>
      m.tenant === query.get('tenant') &&
      axisMatches(m.subject, query.get('subject')) &&
      axisMatches(m.applies_to, query.get('applies_to')) &&
      (query.get('source') === null || m.source === query.get('source')),
  )
  const cursor = query.get('cursor')
  const start = cursor === null ? 0 : found.findIndex((m) => m.id === cursor) + 1
  const limit = Number(query.get('limit') ?? 50)
  const page = found.slice(start, start + limit)
  return Response.json({ memories: page, next_cursor: start + limit < found.length ? page.at(-1)!.id : null })
}

function search(server: FakeServer, query: URLSearchParams): Response {
  const words = (query.get('q') ?? '').toLowerCase().split(/\s+/).filter(Boolean)
  const byWords = (m: Memory) => words.filter((word) => m.content.toLowerCase().includes(word)).length / Math.max(words.length, 1)
  const candidates = newestFirst(server.memories).filter(
    (m) => m.tenant === query.get('tenant') && (m.subject === null || m.subject === query.get('subject')) && (m.applies_to === null || m.applies_to === query.get('actor')),
  )
  const similarity = server.status.embedder !== null
  const ranked = similarity ? candidates.filter((m) => byWords(m) > 0).sort((a, b) => byWords(b) - byWords(a)) : candidates
  const results: SearchResult[] = ranked.slice(0, Number(query.get('k') ?? 10)).map((m) => ({ memory: m, score: similarity ? byWords(m) : null, applies_to_everyone: m.applies_to === null }))
  return Response.json({ ranked_by: similarity ? 'similarity' : 'recency', embedder: server.status.embedder, results })
}

function person(server: FakeServer, method: string, actor: string, rest: string, query: URLSearchParams, body?: Record<string, unknown>): Response {
  const refused = badLabel({ actor }, 'path')
  if (refused) return refused
  if (rest === '/sharing') {
    if (method === 'PUT') server.sharing[actor] = body!.share_memories as boolean | null
    const chosen = server.sharing[actor] ?? null
    return Response.json({ actor, share_memories: chosen, effective: chosen ?? server.status.share_memories_default })
  }
  const tenant = query.get('tenant')
  const theirs = (m: Memory) => m.applies_to === actor && (tenant === null || m.tenant === tenant)
  if (method === 'DELETE') {
    const before = server.memories.length
    server.memories = server.memories.filter((m) => !theirs(m))
    return Response.json({ deleted: before - server.memories.length })
  }
  return Response.json({ memories: newestFirst(server.memories).filter(theirs) })
}

function vectorList(server: FakeServer, query: URLSearchParams): Response {
  if (!query.get('tenant')) return required('tenant')
  const refused = badLabel(Object.fromEntries(query), 'query')
  if (refused) return refused
  const scope = query.get('scope')
  if (scope !== null && scope !== 'user' && scope !== 'conversation') return invalid('query.scope', "Input should be 'user' or 'conversation'")
  const found = [...server.vectorMemories]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .filter((m) => m.tenant === query.get('tenant') && axisMatches(m.person, query.get('person')) && (scope === null || m.scope === scope))
  const cursor = query.get('cursor')
  const start = cursor === null ? 0 : found.findIndex((m) => m.id === cursor) + 1
  const limit = Number(query.get('limit') ?? 50)
  const page = found.slice(start, start + limit)
  return Response.json({ vector_memories: page, next_cursor: start + limit < found.length ? page.at(-1)!.id : null })
}

function forgetVector(server: FakeServer, id: string, query: URLSearchParams): Response {
  const found = server.vectorMemories.find((m) => m.id === id && (!query.get('tenant') || m.tenant === query.get('tenant')))
  if (!found) return Response.json({ error: { code: 'not_found', message: `No vector memory with id '${id}'.` } }, { status: 404 })
  server.vectorMemories = server.vectorMemories.filter((m) => m !== found)
  return Response.json({ deleted: id })
}

function personData(server: FakeServer, method: string, person: string, query: URLSearchParams): Response {
  const refused = badLabel({ person }, 'path') ?? (query.get('tenant') ? badLabel(Object.fromEntries(query), 'query') : required('tenant'))
  if (refused) return refused
  const tenant = query.get('tenant')!
  const about = (m: Memory) => m.tenant === tenant && (m.applies_to === person || m.subject === person)
  const theirs = (m: VectorMemory) => m.tenant === tenant && m.person === person
  const ledgerRows = server.ledgerRows[`${tenant} ${person}`] ?? 0
  if (method === 'DELETE') {
    const [memories, vectors] = [server.memories.length, server.vectorMemories.length]
    server.memories = server.memories.filter((m) => !about(m))
    server.vectorMemories = server.vectorMemories.filter((m) => !theirs(m))
    const deleted = { vector_memories: vectors - server.vectorMemories.length, memories: memories - server.memories.length }
    return Response.json({ person, tenant, deleted, ledger_rows_kept: ledgerRows, ledger: LEDGER_KEPT })
  }
  const memories = newestFirst(server.memories.filter(about)).map(({ id, subject, applies_to, content, source, conversation_id, created_at }) => ({ id, subject, applies_to, content, source, conversation_id, created_at }))
  const vectors = [...server.vectorMemories.filter(theirs)].sort((a, b) => b.id.localeCompare(a.id))
  return Response.json({ person, tenant, vector_memories: vectors, memories, ledger_rows: ledgerRows, ledger: LEDGER_KEPT })
}

function answer(server: FakeServer, method: string, path: string, query: URLSearchParams, body?: Record<string, unknown>): Response {
  if (path === '/api/memories/status') return Response.json({ ...server.status, memories: server.memories.length })
  if (path === '/api/memories/search') return search(server, query)
  if (path === '/api/memories' && method === 'GET') return list(server, query)
  if (path === '/api/memories' && method === 'POST') {
    const refused = badLabel(body!, 'body')
    if (refused) return refused
    const added = memory({ id: `m${server.memories.length + 100}`, ...(body as Pick<Memory, 'tenant' | 'content'>) }, 24 * 60)
    server.memories.push(added)
    return Response.json(added, { status: 201 })
  }
  if (path === '/api/vector-memories' && method === 'GET') return vectorList(server, query)
  const vector = /^\/api\/vector-memories\/([^/]+)$/.exec(path)
  if (vector && method === 'DELETE') return forgetVector(server, decodeURIComponent(vector[1]!), query)
  const data = /^\/api\/people\/([^/]+)\/data$/.exec(path)
  if (data) return personData(server, method, decodeURIComponent(data[1]!), query)
  const people = /^\/api\/memories\/people\/([^/]+)(\/sharing)?$/.exec(path)
  if (people) return person(server, method, decodeURIComponent(people[1]!), people[2] ?? '', query, body)
  const found = server.memories.find((m) => `/api/memories/${encodeURIComponent(m.id)}` === path)
  if (found && method === 'PATCH') {
    const refused = badLabel(body!, 'body')
    if (refused) return refused
    Object.assign(found, body)
    return Response.json(found)
  }
  if (found && method === 'DELETE') {
    server.memories = server.memories.filter((m) => m !== found)
    return Response.json({ deleted: found.id })
  }
  return Response.json({ error: { code: 'not_found', message: path } }, { status: 404 })
}

/** Stub `fetch` with a fresh fake server holding `memories` (and what `stored` adds). */
export function startServer(
  memories: Memory[],
  status: Partial<MemoryStatus> = {},
  stored: { vectorMemories?: VectorMemory[]; ledgerRows?: Record<string, number> } = {},
): FakeServer {
  resetResources()
  const server: FakeServer = {
    memories,
    status: { distiller_model: 'openai:gpt-4o-mini', embedder: 'openai:text-embedding-3-small', vector_store: 'sqlite-vec', share_memories_default: true, memories: 0, ...status },
    sharing: {},
    vectorMemories: stored.vectorMemories ?? [],
    ledgerRows: stored.ledgerRows ?? {},
    calls: [],
  }
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = '', qs = ''] = url.split('?')
      const query = new URLSearchParams(qs)
      const body = init?.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : undefined
      server.calls.push({ method, path, query, body })
      return answer(server, method, path, query, body)
    }),
  )
  return server
}

function Where() {
  return <output data-testid="where">{useLocation().search}</output>
}

export const renderPage = (path = '/memory') =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/memory" element={<MemoryPage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )
