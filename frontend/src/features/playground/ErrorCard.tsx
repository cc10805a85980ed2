import { AlertOctagon, AlertTriangle } from '@/components/icons'
import { cn } from '@/lib/cn'
import type { ErrorView } from '@/lib/thread'
import { Collapsible } from '@/components/ui/collapsible'
import { LongText } from '@/components/common/LongText'

/** An agent error: class and message always visible, traceback folded. Recoverable ones are softer. */
export function ErrorCard({ error }: { error: ErrorView }) {
  const soft = error.recoverable
  const Icon = soft ? AlertTriangle : AlertOctagon
  return (
    <div
      role="alert"
      data-testid="error-card"
      data-recoverable={soft}
      className={cn(
        'rounded-lg border px-3.5 py-3 text-[13px]',
        soft ? 'border-warning/40 bg-warning-soft/70' : 'border-destructive/45 bg-destructive-soft/70',
      )}
    >
      <div className="flex items-start gap-2.5">
        <Icon className={cn('mt-0.5 size-4 shrink-0', soft ? 'text-warning' : 'text-destructive')} />
        <div className="min-w-0 flex-1 space-y-1">
          <p className={cn('font-mono text-[13px] font-semibold', soft ? 'text-warning' : 'text-destructive')}>
            {soft ? 'Recoverable error' : 'Error'}
            {error.className && `: ${error.className}`}
          </p>
          <p className="whitespace-pre-wrap break-words">
            <LongText text={error.message} />
          </p>
          {error.traceback && (
            <Collapsible label="Traceback" className="pt-1">
              <pre className="max-h-80 overflow-auto rounded-md border bg-background/70 p-3 font-mono text-[11px] leading-relaxed">
                <LongText text={error.traceback} limit={50_000} />
              </pre>
            </Collapsible>
          )}
        </div>
      </div>
    </div>
  )
}
