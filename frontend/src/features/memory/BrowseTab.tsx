// Browse a tenant's memories: the filter lives in the page's URL (`?tenant=&subject=&applies_to=
// &source=`, the API's own query), the list below it a page at a time. The server's refusal of a
// filter shows beside the field it names.
import { useSearchParams } from 'react-router'
import { placeErrors } from '@/features/rules/ruleForm'
import { invalidate } from '@/lib/resource'
import { BROWSE_FIELDS, BrowseFilters } from './BrowseFilters'
import { browseQuery, draftOf, queryOf, type BrowseDraft } from './filters'
import { MemoryPages } from './MemoryPages'
import { useMemoryPage } from './queries'

export function BrowseTab() {
  const [params, setParams] = useSearchParams()
  const query = browseQuery(params)
  const first = useMemoryPage(query, null)
  const placed = first.error === undefined ? null : placeErrors(first.error, BROWSE_FIELDS)

  const apply = (draft: BrowseDraft) => {
    if (queryOf(draft).toString() === query) return invalidate('memories:list')
    setParams((current) => {
      const next = new URLSearchParams(current)
      for (const key of BROWSE_FIELDS) next.delete(key)
      for (const [key, value] of queryOf(draft)) next.set(key, value)
      return next
    })
  }

  return (
    <section aria-label="Browse memories" className="grid min-w-0 gap-4">
      <BrowseFilters key={`filters?${query ?? ''}`} initial={draftOf(params)} errors={placed?.fields ?? {}} onApply={apply} />
      {placed?.message && (
        <p role="alert" className="text-xs text-destructive">
          {placed.message}
        </p>
      )}
      {query === null ? (
        <p className="text-sm text-muted-foreground" data-testid="memory-browse-hint">
          Name a tenant to browse its memories, newest first.
        </p>
      ) : (
        <MemoryPages key={`list?${query}`} query={query} />
      )}
    </section>
  )
}
