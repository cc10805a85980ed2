import { AlertTriangle, Braces, FlaskConical, Unlink } from '@/components/icons'
import type { AgentCard } from '@/lib/api/types'
import { Badge } from '@/components/ui/badge'
import { Tooltip } from '@/components/ui/tooltip'

/** The small facts worth a badge: demo model, stateless, structured output, problems. */
export function AgentBadges({ agent }: { agent: Pick<AgentCard, 'model' | 'stateless' | 'structured_output' | 'problems'> }) {
  return (
    <>
      {agent.model?.is_demo && (
        <Badge variant="default" title="Runs on Synapse's offline demo model">
          <FlaskConical /> demo model
        </Badge>
      )}
      {agent.stateless && (
        <Badge variant="secondary" title="Each message is sent independently">
          <Unlink /> Stateless
        </Badge>
      )}
      {agent.structured_output && (
        <Badge variant="secondary">
          <Braces /> structured output
        </Badge>
      )}
      {agent.problems.map((problem) => (
        <Tooltip key={problem.code} content={problem.message}>
          <Badge variant="warning" tabIndex={0} className="relative z-10">
            <AlertTriangle /> {problem.env_var ? `${problem.env_var} missing` : problem.code.replaceAll('_', ' ')}
          </Badge>
        </Tooltip>
      ))}
    </>
  )
}
