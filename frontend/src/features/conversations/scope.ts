// A conversation's scope (tenant, actor, subject) and origin, as the dashboard writes them.
import { SCOPE_AXES, type ScopeAxis, type ScopeRef } from '@/lib/api/types'

/** The scope fields of a conversation row; absent axes are null (or left out). */
export type Scoped = { [axis in ScopeAxis]?: ScopeRef | null }

export const AXIS_LABEL: Record<ScopeAxis, string> = { tenant: 'Tenant', actor: 'Actor', subject: 'Subject' }

/** `firm:7`. */
export const refText = (ref: ScopeRef): string => `${ref.type}:${ref.id}`

/** The axes that are set, in order: tenant, actor, subject. */
export function scopeParts(scoped: Scoped): { axis: ScopeAxis; ref: ScopeRef }[] {
  const parts: { axis: ScopeAxis; ref: ScopeRef }[] = []
  for (const axis of SCOPE_AXES) {
    const ref = scoped[axis]
    if (ref) parts.push({ axis, ref })
  }
  return parts
}

/** `firm:7 · user:42 · case:9`; empty when no axis is set. */
export function scopeText(scoped: Scoped): string {
  return scopeParts(scoped)
    .map(({ ref }) => refText(ref))
    .join(' · ')
}

/** `Tenant firm:7, actor user:42, subject case:9`: the same, naming each axis. */
export function scopeDescription(scoped: Scoped): string {
  const parts = scopeParts(scoped).map(({ axis, ref }, index) => `${index === 0 ? AXIS_LABEL[axis] : axis} ${refText(ref)}`)
  return parts.join(', ')
}

/** A conversation started somewhere other than the playground (an app, a task, a workflow). */
export const fromElsewhere = (origin: string | null | undefined): boolean => Boolean(origin) && origin !== 'playground'
