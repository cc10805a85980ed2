// For the Sources pages' tests: a fake server that answers like the retrieval API (sources kept in
// memory, a slug taken answered 409 with the API's error body, a run whose progress advances one step per
// read, failed files, paged chunks and ranked search), recording every call.
import { render } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { Chunk, Progress, Source, SourceFile } from './api'
import SourcesPage from './SourcesPage'

export interface Call {
  method: string
  path: string
  query: URLSearchParams
  body?: unknown
}

export interface FakeRag {
  sources: Source[]
  /** Progress answers still to give, one per read, for a run under way; the last one stays. */
  steps: Progress[]
  /** The progress answers a run asked for (`POST .../index`) plays. */
  run: Progress[]
  /** The status `POST .../index` leaves: `indexing`, or `pending` while the task waits for a worker. */
  askedStatus: Source['status']
  failed: SourceFile[]
  chunks: Chunk[]
  /** The embedder search answers with; null: none, chunks ranked by the query words they hold. */
  embedder: string | null
  calls: Call[]
}

const STAMP = '2026-05-01T00:00:00.000Z'

export function source(over: Partial<Source> & Pick<Source, 'slug'>): Source {
  return {
    id: `id-${over.slug}`,
    name: over.slug,
    description: null,
    kind: 'folder',
    config: { path: '/srv/docs', include: ['**/*'], exclude: [] },
    tenant: null,
    active: true,
    status: 'done',
    last_error: null,
    total_files: 0,
    processed_files: 0,
    current_file: null,
    document_count: 0,
    chunk_count: 0,
    embedder: 'offline-hash-384',
    last_indexed_at: null,
    created_at: STAMP,
    updated_at: STAMP,
    ...over,
  }
}

export function chunk(id: string, file: string, index: number, total: number, content: string, page: number | null = null): Chunk {
  return {
    id,
    source: 'handbook',
    content,
    chunk_index: index,
    chunk_total: total,
    citation: { source: 'handbook', source_name: 'Handbook', file, page, heading: null, chunk_index: index, chunk_total: total },
  }
}

export const progressOf = (one: Source): Progress => ({
  status: one.status,
  processed_files: one.processed_files,
  total_files: one.total_files,
  current_file: one.current_file,
  last_error: one.last_error,
  chunk_count: one.chunk_count,
  document_count: one.document_count,
  last_indexed_at: one.last_indexed_at,
})

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/
const CODES: Record<number, string> = { 404: 'not_found', 405: 'method_not_allowed', 409: 'conflict', 422: 'invalid_request' }
/** An error answer as the API gives it: `{"error": {"code", "message"}}`. */
const refuse = (status: number, text: string) => Response.json({ error: { code: CODES[status] ?? 'error', message: text } }, { status })

function bodyOf(init?: RequestInit): unknown {
  if (!init?.body) return undefined
  if (typeof init.body === 'string') return JSON.parse(init.body) as unknown
  return init.body
}

function answer(rag: FakeRag, method: string, path: string, query: URLSearchParams, body: unknown): Response {
  if (path === '/api/rag/sources' && method === 'GET') return Response.json({ sources: rag.sources })
  if (path === '/api/rag/sources' && method === 'POST') {
    const input = body as { slug: string; name: string; kind: string; path?: string; include?: string[]; exclude?: string[]; urls?: string[] }
    if (!SLUG.test(input.slug)) return refuse(422, `slug '${input.slug}' must be lowercase letters, digits and -`)
    if (rag.sources.some((one) => one.slug === input.slug)) return refuse(409, `A source with slug '${input.slug}' exists already.`)
    const config = input.kind === 'folder' ? { path: input.path, include: input.include ?? ['**/*'], exclude: input.exclude ?? [] } : input.kind === 'urls' ? { urls: input.urls } : {}
    const created = source({ slug: input.slug, name: input.name, kind: input.kind, config, status: 'pending' })
    rag.sources.push(created)
    return Response.json(created, { status: 201 })
  }
  if (path === '/api/rag/search') {
    const q = query.get('q') ?? ''
    const k = Number(query.get('k') ?? 10)
    const words = q.toLowerCase().split(/\s+/)
    const scored = rag.chunks
      .filter((one) => query.getAll('source').includes(one.source))
      .map((one) => ({ score: words.filter((word) => one.content.toLowerCase().includes(word)).length / words.length, chunk: one }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score)
    return Response.json({ embedder: rag.embedder, ranked_by: rag.embedder ? 'similarity' : 'text', results: scored.slice(0, k) })
  }
  if (path.startsWith('/api/rag/chunks/')) {
    const found = rag.chunks.find((one) => one.id === decodeURIComponent(path.slice('/api/rag/chunks/'.length)))
    return found ? Response.json(found) : refuse(404, 'No such chunk.')
  }
  const match = /^\/api\/rag\/sources\/([^/]+)(\/[a-z]+)?$/.exec(path)
  const slug = match ? decodeURIComponent(match[1]!) : ''
  const at = rag.sources.findIndex((one) => one.slug === slug)
  if (!match || at < 0) return refuse(404, `No source '${slug}'.`)
  const one = rag.sources[at]!
  switch (`${method} ${match[2] ?? ''}`) {
    case 'GET ':
      return Response.json(one)
    case 'PATCH ':
      rag.sources[at] = { ...one, ...(body as Partial<Source>) }
      return Response.json(rag.sources[at])
    case 'DELETE ':
      rag.sources.splice(at, 1)
      return new Response(null, { status: 204 })
    case 'POST /index':
      if (one.status === 'indexing') return refuse(409, `'${slug}' is being indexed already.`)
      rag.sources[at] = { ...one, status: rag.askedStatus, processed_files: 0, total_files: 0 }
      rag.steps = [...rag.run]
      return Response.json({ task_id: 'task-1', source: rag.sources[at] }, { status: 202 })
    case 'GET /progress': {
      const next = rag.steps.length > 1 ? rag.steps.shift()! : rag.steps[0]
      if (next) rag.sources[at] = { ...rag.sources[at]!, ...next }
      return Response.json(next ?? progressOf(one))
    }
    case 'GET /files':
      return Response.json({ files: query.get('status') === 'failed' ? rag.failed : [] })
    case 'POST /files': {
      if (one.kind !== 'upload') return refuse(422, 'Only an upload source takes files.')
      const files = (body as FormData).getAll('files[]') as File[]
      return Response.json({ files: files.map((file) => ({ identifier: file.name, size: file.size })) }, { status: 201 })
    }
    case 'GET /documents': {
      const file = query.get('file')
      const mine = rag.chunks.filter((item) => item.source === slug && (!file || item.citation.file === file))
      const offset = Number(query.get('offset') ?? 0)
      return Response.json({ chunks: mine.slice(offset, offset + Number(query.get('limit') ?? 20)), total: mine.length })
    }
  }
  return refuse(405, `${method} ${path}`)
}

/** Stub fetch with a fresh fake server holding `sources`; returns its state to arrange and check. */
export function fakeRag(sources: Source[] = []): FakeRag {
  resetResources()
  const rag: FakeRag = { sources, steps: [], run: [], askedStatus: 'indexing', failed: [], chunks: [], embedder: 'offline-hash-384', calls: [] }
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = '', search = ''] = url.split('?')
      const query = new URLSearchParams(search)
      const body = bodyOf(init)
      rag.calls.push({ method, path, query, body })
      return answer(rag, method, path, query, body)
    }),
  )
  return rag
}

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.pathname}</output>
}

export const renderSources = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/sources/*" element={<SourcesPage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )
