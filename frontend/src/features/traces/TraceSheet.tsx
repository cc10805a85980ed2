// The playground's trace of one turn, in a sheet over the thread: the root of the turn that wrote
// assistant message `messageId` (GET /api/traces?message_id=…&limit=1), then its tree. Loaded
// when a Trace button is first pressed (MessageMeta), so the playground's first load stays small.
import { CircleSlash } from '@/components/icons'
import { useEffect, useState } from 'react'
import { Link } from 'react-router'
import { EmptyState, ErrorState } from '@/components/common/States'
import { buttonVariants } from '@/components/ui/button'
import { Dialog, DialogTitle } from '@/components/ui/dialog'
import { Skeleton } from '@/components/ui/skeleton'
import { useMessageTrace, useTree } from './queries'
import { TraceView } from './TraceView'

/** A turn's rows land a moment after its answer: look again this many times before saying none. */
const RETRIES = 3
const RETRY_MS = 400

function Tree({ runId }: { runId: string }) {
  const tree = useTree(runId)
  const [selected, setSelected] = useState<string | null>(null)
  if (tree.data) return <TraceView root={tree.data.root} selected={selected} onSelect={setSelected} />
  if (tree.error !== undefined) return <ErrorState error={tree.error} retry={tree.reload} />
  return <Skeleton className="h-64" />
}

function Body({ messageId }: { messageId: string }) {
  const found = useMessageTrace(messageId)
  const [tries, setTries] = useState(0)
  const { reload } = found
  // Read again on each opening: a turn answered a moment ago may not have its rows yet.
  useEffect(() => {
    reload()
  }, [reload])
  useEffect(() => {
    if (found.data !== null || found.loading || tries >= RETRIES) return
    const timer = window.setTimeout(() => {
      setTries((count) => count + 1)
      reload()
    }, RETRY_MS)
    return () => window.clearTimeout(timer)
  }, [found.data, found.loading, tries, reload])
  if (found.error !== undefined && found.data === undefined) return <ErrorState error={found.error} retry={reload} />
  if (found.data) return <Tree runId={found.data.agent_run_id} />
  if (found.data === null && tries >= RETRIES)
    return (
      <EmptyState icon={<CircleSlash />} title="No trace recorded for this turn">
        <p data-testid="no-trace-why">
          Every turn records its trace tree; this one has none because it was answered before Synapse recorded every
          turn, or because its agent says <code>metadata={'{'}'synapse.debug': False{'}'}</code>. Remove that metadata
          to trace its next turns; the settings <code>debug</code>, <code>debug_playground</code> and{' '}
          <code>debug_agents</code> keep the request and response bodies too.
        </p>
      </EmptyState>
    )
  return <Skeleton className="h-64" />
}

export default function TraceSheet({ messageId, open, onClose }: { messageId: string; open: boolean; onClose: () => void }) {
  const found = useMessageTrace(open ? messageId : null)
  const runId = found.data?.agent_run_id
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => !next && onClose()}
      label="Trace of this turn"
      className="m-0 ml-auto h-dvh max-h-none w-full max-w-5xl overflow-y-auto rounded-none border-y-0 border-r-0 font-sans text-sm text-popover-foreground"
    >
      <div className="flex min-w-0 flex-wrap items-center gap-3 pr-8">
        <DialogTitle>Trace of this turn</DialogTitle>
        {runId && (
          <Link to={`/traces/${encodeURIComponent(runId)}`} className={buttonVariants({ variant: 'outline', size: 'xs' })} onClick={onClose}>
            Open in Traces
          </Link>
        )}
      </div>
      <div className="min-w-0" data-testid="trace-sheet">
        <Body messageId={messageId} />
      </div>
    </Dialog>
  )
}
