// Forks next to what they were forked from: on one page of History, a fork whose source is on the
// same page goes right under it (indented); one whose source is elsewhere stays where it is and
// says what it is a fork of.
import type { ConversationsResponse } from '@/lib/api/types'

/** A row of the History list (for a search, with its snippet). */
export type HistoryRow = ConversationsResponse['conversations'][number]

export interface HistoryEntry {
  row: HistoryRow
  /** 0 for a row in its own place; 1 under its source, 2 under a fork of a fork, ... */
  depth: number
  /** The source of a fork not shown under it (its source is not on this page). */
  forkOf: string | null
}

const sourceOf = (row: HistoryRow): string | null => row.forked_from_id ?? null

/** The page's rows in display order: each source followed by its forks, in page order. */
export function groupForks(rows: HistoryRow[]): HistoryEntry[] {
  const onPage = new Set(rows.map((row) => row.id))
  const forks = new Map<string, HistoryRow[]>()
  const roots: HistoryRow[] = []
  for (const row of rows) {
    const source = sourceOf(row)
    if (source && source !== row.id && onPage.has(source)) forks.set(source, [...(forks.get(source) ?? []), row])
    else roots.push(row)
  }
  const entries: HistoryEntry[] = []
  const placed = new Set<string>()
  const place = (row: HistoryRow, depth: number) => {
    if (placed.has(row.id)) return
    placed.add(row.id)
    const source = sourceOf(row)
    entries.push({ row, depth, forkOf: depth === 0 && source && source !== row.id ? source : null })
    for (const fork of forks.get(row.id) ?? []) place(fork, depth + 1)
  }
  for (const row of roots) place(row, 0)
  // Rows whose sources only lead back to each other (never made by Synapse, but possible in data).
  for (const row of rows) place(row, 0)
  return entries
}
