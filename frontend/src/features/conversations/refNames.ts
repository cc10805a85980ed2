// Names for scope ids Synapse itself writes: a task's conversation has the actor
// `standing_agent:<id>`, shown by the standing agent's name as on the Tasks page.
import { request } from '@/lib/api/client'
import type { ScopeRef } from '@/lib/api/types'
import { useResource } from '@/lib/resource'

/** The actor type of a conversation a standing agent's task started. */
export const STANDING_TYPE = 'standing_agent'

type StandingNames = { standing_agents: { id: string; name: string }[] }

/** The standing agents' names, read only when a scope on screen needs one (the Tasks page's cache key). */
function useStandingNames(wanted: boolean) {
  return useResource(wanted ? 'tasks:standing' : null, () => request<StandingNames>('/api/standing-agents'))
}

/** A function naming each ref: a standing agent by its name, any other ref as `type:id`. */
export function useRefName(refs: (ScopeRef | null | undefined)[]): (ref: ScopeRef) => string {
  const wanted = refs.some((ref) => ref?.type === STANDING_TYPE)
  const standing = useStandingNames(wanted).data?.standing_agents
  return (ref) => {
    if (ref.type !== STANDING_TYPE) return `${ref.type}:${ref.id}`
    const found = standing?.find((one) => one.id === ref.id)
    return found ? found.name : `${ref.type}:${ref.id}`
  }
}
