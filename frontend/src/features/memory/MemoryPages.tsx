// The memories a browse query selects, newest first, a page at a time: "Load more" asks for the page
// after the last one shown. A page that changed underneath (a memory added or forgotten) drops the
// pages after it, which would no longer follow on.
import { Brain } from '@/components/icons'
import { useEffect, useState } from 'react'
import { EmptyState, messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { MemoryRow } from './MemoryRow'
import { useMemoryPage } from './queries'

interface PageProps {
  query: string
  cursor: string | null
  /** The cursor of the page shown after this one; undefined when this is the last. */
  following: string | undefined
  onMore: (cursor: string) => void
  onChanged: () => void
}

function Page({ query, cursor, following, onMore, onChanged }: PageProps) {
  const page = useMemoryPage(query, cursor)
  const next = page.data === undefined ? undefined : (page.data.next_cursor ?? null)
  const last = following === undefined
  useEffect(() => {
    if (next !== undefined && !last && next !== following) onChanged()
  }, [next, last, following, onChanged])

  if (page.data === undefined && page.error !== undefined && cursor === null) return null
  if (page.data === undefined && page.error !== undefined)
    return (
      <p role="alert" className="flex items-center gap-2 text-xs text-destructive">
        {messageOf(page.error)}
        <Button variant="outline" size="xs" onClick={page.reload}>
          Try again
        </Button>
      </p>
    )
  if (page.data === undefined) return <Skeleton className={cursor === null ? 'h-40' : 'h-16'} />
  if (cursor === null && page.data.memories.length === 0)
    return (
      <EmptyState icon={<Brain />} title="No memories here">
        <p>Nothing matches these filters. Agents with memory keep what they learn from conversations; you can also add one by hand.</p>
      </EmptyState>
    )
  return (
    <>
      <ul className="space-y-2">
        {page.data.memories.map((memory) => (
          <MemoryRow key={memory.id} memory={memory} />
        ))}
      </ul>
      {last && next && (
        <Button variant="outline" size="sm" onClick={() => onMore(next)} className="justify-self-start">
          Load more
        </Button>
      )}
    </>
  )
}

/** Keyed by `query` where used, so a new filter starts again from the first page. */
export function MemoryPages({ query }: { query: string }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null])
  return (
    <div className="grid gap-2" data-testid="memory-list">
      {cursors.map((cursor, index) => (
        <Page
          key={cursor ?? ''}
          query={query}
          cursor={cursor}
          following={cursors[index + 1] ?? undefined}
          onMore={(next) => setCursors([...cursors.slice(0, index + 1), next])}
          onChanged={() => setCursors((shown) => shown.slice(0, index + 1))}
        />
      ))}
    </div>
  )
}
