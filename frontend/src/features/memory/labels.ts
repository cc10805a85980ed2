// How a memory's provenance and a search score read on the page.
import type { MemorySource } from './api'

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
