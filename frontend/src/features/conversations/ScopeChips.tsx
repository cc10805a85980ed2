// Origin and scope, shown compactly: a badge for an origin other than the playground, and
// `firm:7 · user:42 · case:9` with a hint that names tenant, actor and subject.
import { Badge } from '@/components/ui/badge'
import { Tooltip } from '@/components/ui/tooltip'
import { cn } from '@/lib/cn'
import { AXIS_LABEL, fromElsewhere, refText, scopeDescription, scopeParts, scopeText, type Scoped } from './scope'

export function OriginBadge({ origin, className }: { origin: string; className?: string }) {
  if (!fromElsewhere(origin)) return null
  return (
    <Badge variant="secondary" className={cn('font-mono text-[11px]', className)} data-testid="origin-badge" title={`Started by ${origin === 'app' ? 'an app' : `a ${origin}`}`}>
      {origin}
    </Badge>
  )
}

function ScopeHint({ scoped }: { scoped: Scoped }) {
  return (
    <dl className="space-y-0.5">
      {scopeParts(scoped).map(({ axis, ref }) => (
        <div key={axis} className="flex justify-between gap-4">
          <dt className="text-muted-foreground">{AXIS_LABEL[axis]}</dt>
          <dd className="font-mono">{refText(ref)}</dd>
        </div>
      ))}
    </dl>
  )
}

/** One line: `firm:7 · user:42 · case:9` (nothing when no axis is set). */
export function ScopeLine({ scoped, className }: { scoped: Scoped; className?: string }) {
  const text = scopeText(scoped)
  if (!text) return null
  return (
    <Tooltip content={<ScopeHint scoped={scoped} />}>
      <span tabIndex={0} className={cn('block truncate font-mono text-[11px] text-muted-foreground', className)} aria-label={`Scope: ${scopeDescription(scoped)}`} data-testid="scope">
        {text}
      </span>
    </Tooltip>
  )
}

/** A chip per scope axis, for the playground header. */
export function ScopeChips({ scoped }: { scoped: Scoped }) {
  const parts = scopeParts(scoped)
  if (parts.length === 0) return null
  return (
    <span className="flex min-w-0 items-center gap-1" data-testid="scope-chips">
      {parts.map(({ axis, ref }) => (
        <Tooltip key={axis} content={AXIS_LABEL[axis]}>
          <Badge variant="mono" tabIndex={0} aria-label={`${AXIS_LABEL[axis]} ${refText(ref)}`} className="max-w-40">
            <span className="truncate">{refText(ref)}</span>
          </Badge>
        </Tooltip>
      ))}
    </span>
  )
}
