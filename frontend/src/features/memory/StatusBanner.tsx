// What memory runs on: the distiller model (or the plain fact that nothing is distilled without
// one), the embedder search ranks with, the vector store, the default for sharing and the count.
import { AlertTriangle, Brain } from '@/components/icons'
import { messageOf } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'
import { plural } from '@/lib/format'
import { useMemoryStatus } from './queries'

export function StatusBanner() {
  const status = useMemoryStatus()
  if (status.data === undefined && status.error !== undefined)
    return (
      <p role="alert" className="text-xs text-destructive" data-testid="memory-status">
        The memory status could not be read: {messageOf(status.error)}
      </p>
    )
  if (status.data === undefined) return <Skeleton className="h-14" />
  const { distiller_model: model, embedder, vector_store: store, share_memories_default: shares, memories } = status.data
  return (
    <section aria-label="Memory status" className="space-y-1.5 rounded-lg border bg-card p-3 text-xs text-muted-foreground" data-testid="memory-status">
      {model === null ? (
        <p role="status" className="flex items-start gap-1.5 text-sm text-warning" data-testid="memory-status-distiller">
          <AlertTriangle className="mt-0.5 size-4 shrink-0" />
          <span>
            No memory is distilled until a distiller model is named (the <code className="font-mono">memory_model</code> setting).
          </span>
        </p>
      ) : (
        <p className="flex items-center gap-1.5 text-sm text-foreground" data-testid="memory-status-distiller">
          <Brain className="size-4 shrink-0 text-muted-foreground" />
          <span>
            Distilled by <span className="font-mono">{model}</span>
          </span>
        </p>
      )}
      <p className="flex flex-wrap gap-x-4 gap-y-1">
        <span data-testid="memory-status-embedder">{embedder === null ? 'No embedder: search ranks by recency' : <>Embedder <span className="font-mono text-foreground/85">{embedder}</span></>}</span>
        <span data-testid="memory-status-store">
          Vector store <span className="font-mono text-foreground/85">{store}</span>
        </span>
        <span>{shares ? 'People share memories unless they opt out' : 'People do not share memories unless they opt in'}</span>
        <span data-testid="memory-status-count">{plural(memories, 'memory', 'memories')} kept</span>
      </p>
      {status.data.embedder_problem ? (
        <p role="alert" className="text-destructive" data-testid="memory-status-embedder-problem">
          The embedder setting cannot be used: {status.data.embedder_problem}
        </p>
      ) : null}
    </section>
  )
}
