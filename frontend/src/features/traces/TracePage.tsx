// /traces/:runId — one trace in full: the tree from that run down as a timeline, and the node
// chosen (`?node=<kind>:<id>`, so a link opens the same call). Loaded on its own (App.tsx).
import { ChevronLeft } from '@/components/icons'
import { Link, useParams, useSearchParams } from 'react-router'
import { ErrorState } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'
import { useTree } from './queries'
import { TraceView } from './TraceView'

export default function TracePage() {
  const { runId = '' } = useParams()
  const [params, setParams] = useSearchParams()
  const tree = useTree(runId || null)
  const select = (key: string) => {
    const next = new URLSearchParams(params)
    next.set('node', key)
    setParams(next, { replace: true })
  }
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="trace-page">
      <div className="min-w-0 space-y-4 px-4 py-4 sm:px-6">
        <Link to="/traces" className="inline-flex items-center gap-1 text-xs text-muted-foreground hover:text-foreground">
          <ChevronLeft className="size-3.5" /> All traces
        </Link>
        {tree.data ? (
          <TraceView root={tree.data.root} selected={params.get('node')} onSelect={select} />
        ) : tree.error !== undefined ? (
          <ErrorState error={tree.error} retry={tree.reload} />
        ) : (
          <Skeleton className="h-64" />
        )}
      </div>
    </div>
  )
}
