// The small pieces a node's detail is made of: a labelled fact, an id with a copy button, a
// titled section, the status and origin badges.
import type { ReactNode } from 'react'
import { CopyButton } from '@/components/common/CopyButton'
import { Badge } from '@/components/ui/badge'
import { originHint, originLabel } from './format'

export function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="break-words text-[13px]" data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

/** An id in full (it wraps rather than overflows), with a copy button. */
export function IdFact({ label, value, hint }: { label: string; value: string | null | undefined; hint?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">
        {label}
        {hint && <span className="ml-1 text-muted-foreground/80">({hint})</span>}
      </dt>
      <dd className="flex min-w-0 items-start gap-1">
        <code className="min-w-0 break-all font-mono text-xs" data-testid={`id-${label.toLowerCase().replaceAll(' ', '-')}`}>
          {value ?? '—'}
        </code>
        {value && <CopyButton text={() => value} label={`Copy ${label}`} className="-my-0.5 shrink-0" />}
      </dd>
    </div>
  )
}

export function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section aria-label={title} className="min-w-0 space-y-1.5" data-testid={testId}>
      <h4 className="text-xs font-medium text-muted-foreground">{title}</h4>
      {children}
    </section>
  )
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge variant={status === 'error' ? 'destructive' : 'success'} data-testid="trace-status" data-status={status}>
      {status === 'error' ? 'Error' : 'OK'}
    </Badge>
  )
}

export function OriginBadge({ origin }: { origin: string | null | undefined }) {
  if (!origin) return null
  return (
    <Badge variant="outline" title={originHint(origin)} data-testid="trace-origin" data-origin={origin}>
      {originLabel(origin)}
    </Badge>
  )
}

export function ErrorText({ error }: { error: string | null | undefined }) {
  if (!error) return null
  return (
    <p role="status" className="whitespace-pre-wrap break-words rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-[13px] text-destructive" data-testid="trace-error">
      {error}
    </p>
  )
}
