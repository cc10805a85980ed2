// How a memory's provenance, a vector memory's scope and source, and a search score read on the page.
import type { MemorySource, VectorScope, VectorSourceType } from './api'

export const SOURCE_LABELS: Record<MemorySource, string> = {
  distilled: 'Distilled',
  tool: 'Saved by a tool',
  manual: 'Added by hand',
}

/** What the link to a memory's conversation says it came from. */
export const ORIGIN_LABELS: Record<MemorySource, string> = {
  distilled: 'Distilled from a conversation',
  tool: 'Saved by a tool during a conversation',
  manual: 'Added by hand during a conversation',
}

export const formatScore = (score: number | null) => (score === null ? 'no score' : `score ${score.toFixed(3)}`)

/** A vector memory's scope: the person's own (kept until forgotten) or one conversation's. */
export const SCOPE_LABELS: Record<VectorScope, string> = {
  user: "The person's",
  conversation: "One conversation's",
}

export const VECTOR_SOURCE_LABELS: Record<VectorSourceType, string> = {
  fact: 'Fact',
  document: 'From a document',
  manual: 'Added by hand',
}
