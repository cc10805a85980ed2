// What the Spend page calls an agent: the name the rest of the dashboard shows (its label where
// names collide, `name · module`; a configured agent's name), from `GET /api/agents`. A key no
// agent has (one run from a program under its own name) is shown as it is.
import type { AgentCard } from '@/lib/api/types'
import { useAgents } from '@/lib/queries'

type Named = Pick<AgentCard, 'slug' | 'name'> & { label?: string | null }

/** slug → the name to show (`label ?? name`, as the sidebar and the agents page do). */
export function agentNames(agents: readonly Named[]): Map<string, string> {
  return new Map(agents.map((agent) => [agent.slug, agent.label || agent.name || agent.slug]))
}

/** `nameOf(key)`: the agent's name, or the key itself when no known agent has it. */
export function nameOfAgent(names: ReadonlyMap<string, string>): (key: string) => string {
  return (key) => names.get(key) ?? key
}

/** The agents' names as a lookup (the keys themselves until the agents are loaded). */
export function useAgentNames(): (key: string) => string {
  const agents = useAgents().data?.agents
  return nameOfAgent(agentNames(agents ?? []))
}
