// A source's indexing status as a badge, and a run under way as a bar: files processed of the
// total, and the file being read now.
import { Loader2 } from '@/components/icons'
import { Badge } from '@/components/ui/badge'
import { formatInt, plural } from '@/lib/format'
import type { Progress, SourceStatus } from './api'

const VARIANT = { pending: 'outline', indexing: 'default', done: 'success', failed: 'destructive' } as const

export function StatusBadge({ status }: { status: SourceStatus }) {
  return (
    <Badge variant={VARIANT[status] ?? 'outline'} data-testid="source-status">
      {status === 'indexing' && <Loader2 className="animate-spin" />}
      {status}
    </Badge>
  )
}

/** The share of files done, 0 to 1 (0 while the total is not known yet). */
export const fractionDone = (processed: number, total: number): number => (total > 0 ? Math.min(1, Math.max(0, processed / total)) : 0)

export function IndexProgress({ progress, waiting }: { progress: Progress | undefined; waiting: boolean }) {
  if (progress?.status !== 'indexing') {
    return waiting ? (
      <p className="text-sm text-muted-foreground" data-testid="index-queued">
        Queued: indexing starts when a worker picks the task up.
      </p>
    ) : null
  }
  const { processed_files: processed, total_files: total } = progress
  const share = fractionDone(processed, total)
  return (
    <div className="space-y-1.5" data-testid="index-progress">
      <div className="flex items-baseline justify-between gap-3 text-sm">
        <span>
          Indexing: {formatInt(processed)}/{plural(total, 'file')}
        </span>
        <span className="font-mono text-xs text-muted-foreground">{Math.round(share * 100)}%</span>
      </div>
      <div
        role="progressbar"
        aria-label="Indexing progress"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={processed}
        className="h-2 overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full rounded-full bg-primary transition-[width]" style={{ width: `${share * 100}%` }} />
      </div>
      {progress.current_file && (
        <p className="truncate font-mono text-xs text-muted-foreground" title={progress.current_file}>
          {progress.current_file}
        </p>
      )}
    </div>
  )
}
