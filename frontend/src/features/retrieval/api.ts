// The retrieval API (docs/retrieval.md), typed from schema.gen.ts (`npm run api-types`): sources of
// documents, their indexing and its progress, the files that failed, the chunks made from them, and
// search over them.
import { json, request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

type Schemas = components['schemas']

/** A source of documents: a folder, uploaded files or a connector's (URLs, ...). */
export type Source = Schemas['SourceOut']
export type SourceStatus = Source['status']
/** Where a chunk came from, as an answer cites it. */
export type Citation = Schemas['Citation']
/** A piece of one file, embedded and searchable (a "document"). */
export type Chunk = Schemas['ChunkOut']
export type Progress = Schemas['ProgressOut']
export type SourceFile = Schemas['FileOut']
/** A file an upload stored (indexed at the source's next run). */
export type Uploaded = Schemas['Uploaded']
export type SearchHit = Schemas['SearchHit']
/** Ranked chunks: by similarity to the query's embedding, or (no embedder) by the query words they hold. */
export type SearchAnswer = Schemas['SearchOut']
/** A new source: the kind's own fields (`path` and globs, `urls`) are folded into its config; active unless said. */
export type NewSource = Omit<Schemas['SourceIn'], 'active'> & { active?: boolean }
export type SourceChange = Schemas['SourcePatch']

const one = (slug: string) => `/api/rag/sources/${encodeURIComponent(slug)}`
const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

/** Resolves once done: a 204 has no body to read. */
const noContent = (path: string, init: RequestInit): Promise<void> =>
  request<unknown>(path, init).then(
    () => undefined,
    (error: unknown) => {
      if (!(error instanceof SyntaxError)) throw error
    },
  )

export const ragApi = {
  sources: () => request<Schemas['SourceList']>('/api/rag/sources'),
  source: (slug: string) => request<Source>(one(slug)),
  create: (body: NewSource) => request<Source>('/api/rag/sources', json('POST', body)),
  update: (slug: string, change: SourceChange) => request<Source>(one(slug), json('PATCH', change)),
  remove: (slug: string) => noContent(one(slug), { method: 'DELETE' }),
  index: (slug: string, reembed = false) => request<Schemas['IndexQueued']>(`${one(slug)}/index`, json('POST', { reembed })),
  progress: (slug: string) => request<Progress>(`${one(slug)}/progress`),
  files: (slug: string, status?: SourceFile['status']) => request<Schemas['FileList']>(`${one(slug)}/files${query({ status })}`),
  upload: (slug: string, files: File[]) => {
    const form = new FormData()
    for (const file of files) form.append('files[]', file, file.name)
    return request<Schemas['UploadedList']>(`${one(slug)}/files`, { method: 'POST', body: form })
  },
  removeFile: (slug: string, identifier: string) => noContent(`${one(slug)}/files${query({ identifier })}`, { method: 'DELETE' }),
  documents: (slug: string, page: { file?: string; offset: number; limit: number }) => request<Schemas['DocumentPage']>(`${one(slug)}/documents${query(page)}`),
  chunk: (id: string) => request<Chunk>(`/api/rag/chunks/${encodeURIComponent(id)}`),
  search: (sources: string[], q: string, k: number) => {
    const params = new URLSearchParams(sources.map((slug) => ['source', slug]))
    params.set('q', q)
    params.set('k', String(k))
    return request<SearchAnswer>(`/api/rag/search?${params}`)
  },
}

/** "Handbook · guide/intro.md · p. 3 · chunk 2/7": where a chunk came from, in one line. */
export function citationLabel(citation: Pick<Citation, 'source_name' | 'file' | 'page' | 'chunk_index' | 'chunk_total'>): string {
  const parts = [citation.source_name, citation.file]
  if (citation.page !== null && citation.page !== undefined) parts.push(`p. ${citation.page}`)
  parts.push(`chunk ${citation.chunk_index + 1}/${citation.chunk_total}`)
  return parts.filter(Boolean).join(' · ')
}
