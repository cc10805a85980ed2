// The retrieval API (docs/retrieval.md): sources of documents, their indexing and its progress, the
// files that failed, the chunks made from them, and search over them. Typed by hand here: these
// routes' types are the HTTP shapes the API documents, one for one.
import { ApiError } from '@/lib/api/client'
import { apiUrl } from '@/lib/base'

export type SourceStatus = 'pending' | 'indexing' | 'done' | 'failed'

/** A source of documents: a folder, uploaded files or a connector's (URLs, ...). */
export interface Source {
  id: string
  slug: string
  name: string
  description: string | null
  kind: string
  config: Record<string, unknown>
  tenant: string | null
  active: boolean
  status: SourceStatus
  last_error: string | null
  total_files: number
  processed_files: number
  current_file: string | null
  document_count: number
  chunk_count: number
  embedder: string | null
  last_indexed_at: string | null
  created_at: string
  updated_at: string
}

/** Where a chunk came from, as an answer cites it. */
export interface Citation {
  source: string
  source_name: string
  file: string
  page: number | null
  heading: string | null
  chunk_index: number
  chunk_total: number
}

/** A piece of one file, embedded and searchable (a "document"). */
export interface Chunk {
  id: string
  source: string
  content: string
  chunk_index: number
  chunk_total: number
  citation: Citation
}

export interface Progress {
  status: SourceStatus
  processed_files: number
  total_files: number
  current_file: string | null
  last_error: string | null
  chunk_count: number
  document_count: number
  last_indexed_at: string | null
}

export interface SourceFile {
  identifier: string
  status: 'indexed' | 'failed'
  error: string | null
  chunk_count: number
  size: number | null
  indexed_at: string | null
}

export interface SearchHit {
  score: number
  chunk: Chunk
}

export interface SearchAnswer {
  embedder: string
  results: SearchHit[]
}

/** A new source: the kind's own fields (`path` and globs, `urls`) are folded into its config. */
export interface NewSource {
  slug: string
  name: string
  description?: string
  kind: string
  path?: string
  include?: string[]
  exclude?: string[]
  urls?: string[]
  tenant?: string
  active?: boolean
}

export type SourceChange = Partial<Pick<NewSource, 'name' | 'description' | 'active' | 'include' | 'exclude' | 'path' | 'urls'>>

/** The message of an error answer: `{"error": {"message"}}`, or `{"detail"}` (text or a list). */
function messageIn(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null
  const { error, detail } = body as { error?: { message?: unknown }; detail?: unknown }
  if (error && typeof error.message === 'string') return error.message
  if (typeof detail === 'string') return detail
  if (Array.isArray(detail)) {
    const messages = detail.flatMap((item: { msg?: unknown; message?: unknown } | null) =>
      typeof item?.msg === 'string' ? [item.msg] : typeof item?.message === 'string' ? [item.message] : [],
    )
    if (messages.length) return messages.join('; ')
  }
  return null
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: unknown = null
  try {
    body = await response.json()
  } catch {
    // Not JSON (a proxy's page, say): the status line says enough.
  }
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code
  const message = messageIn(body) ?? `${response.status} ${response.statusText}`.trim()
  return new ApiError(response.status, typeof code === 'string' ? code : 'http_error', message)
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let response: Response
  try {
    response = await fetch(apiUrl(path), { ...init, headers: { Accept: 'application/json', ...init?.headers } })
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause
    throw new ApiError(0, 'network', 'Synapse is not answering. Is `synapse serve` still running?')
  }
  if (!response.ok) throw await errorOf(response)
  if (response.status === 204) return undefined as T
  return (await response.json()) as T
}

const send = (method: string, body: unknown): RequestInit => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
const one = (slug: string) => `/api/rag/sources/${encodeURIComponent(slug)}`
const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

export const ragApi = {
  sources: () => call<{ sources: Source[] }>('/api/rag/sources'),
  source: (slug: string) => call<Source>(one(slug)),
  create: (body: NewSource) => call<Source>('/api/rag/sources', send('POST', body)),
  update: (slug: string, change: SourceChange) => call<Source>(one(slug), send('PATCH', change)),
  remove: (slug: string) => call<void>(one(slug), { method: 'DELETE' }),
  index: (slug: string, reembed = false) => call<{ task_id: string; source: Source }>(`${one(slug)}/index`, send('POST', { reembed })),
  progress: (slug: string) => call<Progress>(`${one(slug)}/progress`),
  files: (slug: string, status?: 'indexed' | 'failed') => call<{ files: SourceFile[] }>(`${one(slug)}/files${query({ status })}`),
  upload: (slug: string, files: File[]) => {
    const form = new FormData()
    for (const file of files) form.append('files[]', file, file.name)
    return call<{ files: SourceFile[] }>(`${one(slug)}/files`, { method: 'POST', body: form })
  },
  removeFile: (slug: string, identifier: string) => call<void>(`${one(slug)}/files${query({ identifier })}`, { method: 'DELETE' }),
  documents: (slug: string, page: { file?: string; offset: number; limit: number }) =>
    call<{ chunks: Chunk[]; total: number }>(`${one(slug)}/documents${query(page)}`),
  chunk: (id: string) => call<Chunk>(`/api/rag/chunks/${encodeURIComponent(id)}`),
  search: (sources: string[], q: string, k: number) => {
    const params = new URLSearchParams(sources.map((slug) => ['source', slug]))
    params.set('q', q)
    params.set('k', String(k))
    return call<SearchAnswer>(`/api/rag/search?${params}`)
  },
}

/** "Handbook · guide/intro.md · p. 3 · chunk 2/7": where a chunk came from, in one line. */
export function citationLabel(citation: Pick<Citation, 'source_name' | 'file' | 'page' | 'chunk_index' | 'chunk_total'>): string {
  const parts = [citation.source_name, citation.file]
  if (citation.page !== null && citation.page !== undefined) parts.push(`p. ${citation.page}`)
  parts.push(`chunk ${citation.chunk_index + 1}/${citation.chunk_total}`)
  return parts.filter(Boolean).join(' · ')
}
