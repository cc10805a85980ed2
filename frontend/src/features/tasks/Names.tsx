// What the Tasks page calls an agent and a run's actor: the names the rest of the dashboard
// shows, with the raw slug or scope id a hover (or focus) away.
import { Badge } from '@/components/ui/badge'
import { Tooltip } from '@/components/ui/tooltip'
import { cn } from '@/lib/cn'
import { useAgents } from '@/lib/queries'
import type { TaskSummary } from './api'
import { useStanding } from './queries'

/** The type of a task's actor in its conversation's scope: the standing agent that fired it. */
export const ACTOR_TYPE = 'standing_agent'

/** A slug's name as the agent list gives it (its label where names collide); the slug until known. */
export function useAgentName(slug: string): string {
  const agent = useAgents().data?.agents.find((one) => one.slug === slug)
  return agent?.label ?? agent?.name ?? slug
}

/** An agent by name, its slug in a tooltip. */
export function AgentName({ slug, className }: { slug: string; className?: string }) {
  const name = useAgentName(slug)
  return (
    <Tooltip content={<span className="font-mono">{slug}</span>}>
      <span tabIndex={0} className={cn('min-w-0 truncate', className)} aria-label={`Agent ${name} (${slug})`} data-testid="agent-name" data-slug={slug}>
        {name}
      </span>
    </Tooltip>
  )
}

/** A run's actor as its conversation records it: `standing_agent:<id>`, or `task:manual` without one. */
export function actorRef(task: Pick<TaskSummary, 'standing_agent_id'>): string {
  return task.standing_agent_id ? `${ACTOR_TYPE}:${task.standing_agent_id}` : 'task:manual'
}

/** The actor chip of a run: the standing agent's name (the raw actor in a tooltip). */
export function ActorChip({ task }: { task: Pick<TaskSummary, 'standing_agent_id'> }) {
  const standing = useStanding()
  const id = task.standing_agent_id
  const found = id ? standing.data?.standing_agents.find((one) => one.id === id) : undefined
  const raw = actorRef(task)
  const name = !id ? 'Queued directly' : found ? found.name : standing.data ? 'A deleted standing agent' : raw
  return (
    <Tooltip content={<span className="font-mono">{raw}</span>}>
      <Badge variant="secondary" tabIndex={0} className="max-w-full" aria-label={`Actor ${name} (${raw})`} data-testid="task-actor" data-actor={raw}>
        <span className="truncate">{name}</span>
      </Badge>
    </Tooltip>
  )
}
