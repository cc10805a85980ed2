// What an answer cites: the chunks the Retrieval capability's tool (`search_documents`) returned to
// the model in this turn, read from its result (a JSON object, or that object as a JSON string).
import type { ToolView } from '@/lib/thread'

/** The tool the Retrieval capability gives an agent. */
export const SEARCH_TOOL = 'search_documents'

export interface CitedChunk {
  chunk_id: string
  source: string
  source_name: string
  file: string
  page: number | null
  heading: string | null
  chunk_index: number
  chunk_total: number
  score: number | null
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

function citedChunk(raw: unknown): CitedChunk | null {
  if (!raw || typeof raw !== 'object') return null
  const item = raw as Record<string, unknown>
  const id = text(item.chunk_id) ?? (typeof item.chunk_id === 'number' ? String(item.chunk_id) : null)
  if (!id) return null
  const source = text(item.source) ?? ''
  return {
    chunk_id: id,
    source,
    source_name: text(item.source_name) ?? source,
    file: text(item.file) ?? '',
    page: count(item.page),
    heading: text(item.heading),
    chunk_index: count(item.chunk_index) ?? 0,
    chunk_total: count(item.chunk_total) ?? 1,
    score: count(item.score),
  }
}

/** The chunks in one search result; none when it is not the tool's shape (or not whole JSON). */
export function resultChunks(result: unknown): CitedChunk[] {
  let value = result
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown
    } catch {
      return []
    }
  }
  const results = value && typeof value === 'object' ? (value as { results?: unknown }).results : undefined
  if (!Array.isArray(results)) return []
  return results.flatMap((item) => citedChunk(item) ?? [])
}

/** The search calls among `tools` that returned a result. */
export const searchCalls = (tools: ToolView[]): ToolView[] => tools.filter((tool) => tool.name === SEARCH_TOOL && tool.status === 'success')

/** Every chunk the turn's searches returned, in order, each once. */
export function citationsOf(tools: ToolView[]): CitedChunk[] {
  const seen = new Set<string>()
  return searchCalls(tools).flatMap((tool) =>
    resultChunks(tool.result).filter((chunk) => {
      if (seen.has(chunk.chunk_id)) return false
      seen.add(chunk.chunk_id)
      return true
    }),
  )
}
