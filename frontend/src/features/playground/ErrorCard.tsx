import { AlertOctagon, AlertTriangle, RotateCw } from '@/components/icons'
import { useEffect, useState } from 'react'
import { cn } from '@/lib/cn'
import type { ErrorView, LimitRefusalView, ProviderErrorView } from '@/lib/thread'
import { Button } from '@/components/ui/button'
import { Collapsible } from '@/components/ui/collapsible'
import { LongText } from '@/components/common/LongText'
import { secondsLeft } from './retryAfter'
import { TracebackView } from './TracebackView'

const STATUS_WORDS: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authorised',
  403: 'Forbidden',
  404: 'Not found',
  408: 'Timed out',
  413: 'Request too large',
  422: 'Request refused',
  429: 'Rate limited',
  500: 'Provider error',
  502: 'Bad gateway',
  503: 'Provider unavailable',
  504: 'Timed out',
}

/** Errors that trying again cannot fix: the card offers no Retry and no countdown. */
const FINAL_KINDS = new Set(['quota_exhausted', 'spending_limit'])

function title(error: ErrorView): string {
  const status = error.provider?.status
  if (error.provider?.kind === 'quota_exhausted') return `Plan or credit exhausted${status ? ` · ${status}` : ''}`
  if (error.provider?.kind === 'spending_limit') return 'Spending limit reached'
  if (status) return `${STATUS_WORDS[status] ?? (status >= 500 ? 'Provider error' : 'Refused')} · ${status}`
  return `${error.recoverable ? 'Recoverable error' : 'Error'}${error.className ? `: ${error.className}` : ''}`
}

function RetryAfter({ provider, at }: { provider: ProviderErrorView; at: number | null | undefined }) {
  const seconds = provider.retryAfter ?? 0
  const [now, setNow] = useState(() => Date.now())
  const left = secondsLeft(seconds, at, now)
  useEffect(() => {
    if (left <= 0) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [left])
  return (
    <p className="text-xs text-muted-foreground" data-testid="retry-after" aria-live="polite">
      The provider asked to wait {Math.round(seconds)} s before retrying
      {left > 0 ? <span className="font-medium text-foreground"> · {left} s left</span> : ' · you can retry now'}
    </p>
  )
}

function QuotaExhausted() {
  return (
    <p className="text-xs text-muted-foreground" data-testid="quota-exhausted">
      The provider says this account's plan or credit is used up. Retrying will not help: add credit or raise the plan with
      the provider, or pick another model.
    </p>
  )
}

function LimitRefusal({ limit }: { limit: LimitRefusalView }) {
  const money = (value: string | null) => (value == null ? '?' : `${value} ${limit.currency ?? ''}`.trim())
  return (
    <div className="space-y-0.5 text-xs text-muted-foreground" data-testid="limit-refusal">
      <p>
        Limit {money(limit.amount)} per {(limit.period ?? 'period').replace('_', ' ')} on {limit.scope} {limit.scopeId}: {money(limit.consumed)} spent
        or reserved, {money(limit.headroom)} left; this call reserved {money(limit.reservation)}, its worst case.
      </p>
      <p className="text-foreground">
        To let it through, raise the limit, or lower the agent's <span className="font-mono">max_tokens</span> so the worst case fits in
        what is left.
      </p>
    </div>
  )
}

/**
 * An agent error. A provider's refusal shows its status, error type and code, its own message, a
 * Retry-After countdown and the model; the traceback is folded, the project's own frames first and
 * library frames folded. `onRetry` sends the last user message again; it is not offered when
 * retrying cannot help (an exhausted plan or credit, a spending limit).
 */
export function ErrorCard({ error, onRetry: retry }: { error: ErrorView; onRetry?: () => void }) {
  const soft = error.recoverable
  const Icon = soft ? AlertTriangle : AlertOctagon
  const provider = error.provider ?? null
  const final = FINAL_KINDS.has(provider?.kind ?? '')
  const onRetry = final ? undefined : retry
  // For a provider's refusal the title is its status: the exception class (what code catches) and
  // the provider's error type and code come beside it.
  const chips = provider
    ? [...new Set([error.className, provider.type, provider.code && provider.code !== String(provider.status) ? provider.code : null])].filter(Boolean)
    : []
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
        <div className="min-w-0 flex-1 space-y-1.5">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <p className={cn('font-mono text-[13px] font-semibold', soft ? 'text-warning' : 'text-destructive')} data-testid="error-title">
              {title(error)}
            </p>
            {chips.map((chip) => (
              <span key={chip} className="rounded bg-background/70 px-1.5 py-0.5 font-mono text-[11px] text-muted-foreground">
                {chip}
              </span>
            ))}
            {provider?.model && <span className="font-mono text-[11px] text-muted-foreground">{provider.model}</span>}
          </div>
          <p className="whitespace-pre-wrap break-words" data-testid="error-message">
            <LongText text={provider?.message ?? error.message} />
          </p>
          {!final && provider?.retryAfter != null && provider.retryAfter > 0 && <RetryAfter provider={provider} at={error.at} />}
          {provider?.kind === 'quota_exhausted' && <QuotaExhausted />}
          {provider?.kind === 'spending_limit' && provider.limit && <LimitRefusal limit={provider.limit} />}
          {error.traceback && (
            <Collapsible label="Traceback" className="pt-0.5">
              <TracebackView text={error.traceback} />
            </Collapsible>
          )}
          {onRetry && (
            <div className="pt-1">
              <Button size="sm" variant="secondary" onClick={onRetry}>
                <RotateCw /> Retry
              </Button>
            </div>
          )}
        </div>
      </div>
    </div>
  )
}
