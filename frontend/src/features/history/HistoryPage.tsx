import { History, SearchX } from '@/components/icons'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useSearchParams } from 'react-router'
import { useAgents, useConversations } from '@/lib/queries'
import { EmptyState, ErrorState, PageHeader } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Pagination } from '@/components/ui/pagination'
import { Skeleton } from '@/components/ui/skeleton'
import { HistoryTable } from './HistoryTable'
import { HistoryToolbar } from './HistoryToolbar'
import { activeFilterCount, apiQuery, changeState, countLabel, DEFAULT_STATE, readState, writeState, type HistoryState } from './historyParams'

export function HistoryPage() {
  const [params, setParams] = useSearchParams()
  const query = params.toString()
  // The URL is the source of truth (reload, back, shared links); a local copy makes each control
  // answer at once instead of waiting for the router's transition.
  const [state, setState] = useState(() => readState(params))
  useEffect(() => setState(readState(new URLSearchParams(query))), [query])
  const agents = useAgents()
  const list = useConversations(apiQuery(state))
  const latest = useRef(state)
  latest.current = state
  const update = useCallback(
    (change: Partial<HistoryState>) => {
      const next = changeState(latest.current, change)
      latest.current = next
      setState(next)
      setParams(writeState(next))
    },
    [setParams],
  )
  const data = list.data
  const filtered = activeFilterCount(state) > 0 || state.search.trim() !== ''
  return (
    <div className="flex h-full flex-col overflow-y-auto">
      <PageHeader title="History" description="Every conversation, from the playground and from your apps, with its messages, tool calls and errors." />
      <HistoryToolbar state={state} agents={agents.data?.agents ?? []} onChange={update} />
      <div className="flex-1 px-6 pb-6">
        {!data && list.error !== undefined && <ErrorState error={list.error} retry={list.reload} />}
        {!data && list.error === undefined && (
          <div className="space-y-2" aria-busy="true" aria-label="Loading conversations">
            {Array.from({ length: 8 }, (_, i) => (
              <Skeleton key={i} className="h-10" />
            ))}
          </div>
        )}
        {data && data.conversations.length === 0 && !filtered && (
          <EmptyState icon={<History />} title="No conversations yet">
            <p>Open an agent and send a message: every conversation lands here, searchable, with the ones your apps hold.</p>
          </EmptyState>
        )}
        {data && data.conversations.length === 0 && filtered && (
          <EmptyState icon={<SearchX />} title="No conversation matches">
            <p>Try other words or fewer filters.</p>
            <Button variant="outline" size="sm" onClick={() => update({ ...DEFAULT_STATE })}>
              Reset search and filters
            </Button>
          </EmptyState>
        )}
        {data && data.conversations.length > 0 && (
          <div className={list.loading ? 'opacity-60 transition-opacity' : 'transition-opacity'}>
            <div className="rounded-lg border">
              <HistoryTable rows={data.conversations} />
            </div>
            <div className="flex flex-wrap items-center justify-between gap-3 pt-3">
              <p className="text-xs text-muted-foreground" data-testid="history-count">
                {countLabel(data.page, data.page_size, data.conversations.length, data.total, data.total_exact)}
              </p>
              <Pagination page={data.page} pages={data.pages} onPage={(page) => update({ page })} />
            </div>
          </div>
        )}
      </div>
    </div>
  )
}
