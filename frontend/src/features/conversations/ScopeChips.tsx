// Origin and scope, shown compactly: a badge for an origin other than the playground, and
// `firm:7 · user:42 · case:9` with a hint that names tenant, actor and subject.
import { Badge } from '@/components/ui/badge'
import { Tooltip } from '@/components/ui/tooltip'
import { cn } from '@/lib/cn'
import { useRefName } from './refNames'
import { AXIS_LABEL, fromElsewhere, refText, scopeDescription, scopeParts, type Scoped } from './scope'

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

/** One line: `firm:7 · user:42 · case:9` (nothing when no axis is set); a standing agent by name. */
export function ScopeLine({ scoped, className }: { scoped: Scoped; className?: string }) {
  const parts = scopeParts(scoped)
  const named = useRefName(parts.map(({ ref }) => ref))
  const text = parts.map(({ ref }) => named(ref)).join(' · ')
  if (!text) return null
  return (
    <Tooltip content={<ScopeHint scoped={scoped} />}>
      <span tabIndex={0} className={cn('block truncate font-mono text-[11px] text-muted-foreground', className)} aria-label={`Scope: ${scopeDescription(scoped)}`} data-testid="scope">
        {text}
      </span>
    </Tooltip>
  )
}

/** A chip per scope axis, for the playground header; a standing agent by name, its raw ref in the tooltip. */
export function ScopeChips({ scoped }: { scoped: Scoped }) {
  const parts = scopeParts(scoped)
  const named = useRefName(parts.map(({ ref }) => ref))
  if (parts.length === 0) return null
  return (
    <span className="flex min-w-0 items-center gap-1" data-testid="scope-chips">
      {parts.map(({ axis, ref }) => {
        const name = named(ref)
        const raw = refText(ref)
        return (
          <Tooltip key={axis} content={name === raw ? AXIS_LABEL[axis] : `${AXIS_LABEL[axis]} ${raw}`}>
            <Badge variant="mono" tabIndex={0} aria-label={`${AXIS_LABEL[axis]} ${name === raw ? raw : `${name} (${raw})`}`} className="max-w-40" data-ref={raw}>
              <span className="truncate">{name}</span>
            </Badge>
          </Tooltip>
        )
      })}
    </span>
  )
}
