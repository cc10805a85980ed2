import { SearchX } from '@/components/icons'
import type { AgentsResponse } from '@/lib/api/types'
import { EmptyState } from '@/components/common/States'

const code = 'rounded bg-muted px-1.5 py-0.5 font-mono text-xs text-foreground'

/** No agents: say where Synapse looked and how to point it elsewhere. */
export function AgentsEmpty({ data }: { data: AgentsResponse }) {
  return (
    <EmptyState icon={<SearchX />} title="No agents found" className="max-w-xl">
      <p>
        Synapse looked for module-level <code className={code}>pydantic_ai.Agent</code> instances in{' '}
        {data.targets.length ? (
          data.targets.map((target, i) => (
            <span key={target}>
              {i > 0 && ', '}
              <code className={code}>{target}</code>
            </span>
          ))
        ) : (
          <code className={code}>./agents</code>
        )}{' '}
        under <code className={code}>{data.project_root}</code>.
      </p>
      <p>Point it elsewhere with any of:</p>
      <ul className="space-y-1.5 text-left">
        <li>
          <code className={code}>synapse serve app/agents.py app.other_agents</code>
        </li>
        <li>
          <code className={code}>SYNAPSE_AGENTS=app.agents synapse serve</code>
        </li>
        <li>
          <code className={code}>[tool.synapse] agents = ["app.agents"]</code> in pyproject.toml
        </li>
      </ul>
      <p>
        Or try the examples: <code className={code}>synapse serve --demo</code>
      </p>
    </EmptyState>
  )
}
