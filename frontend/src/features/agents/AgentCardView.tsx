import { Bot, Database, Info, Zap } from '@/components/icons'
import { Badge } from '@/components/ui/badge'
import { Link } from 'react-router'
import type { AgentCard } from '@/lib/api/types'
import { formatModel } from '@/lib/format'
import { Card } from '@/components/ui/card'
import { agentPath } from '@/features/conversations/paths'
import { AgentBadges } from './AgentBadges'
import { ToolChips } from './ToolChips'

/** One discovered agent. The name is a stretched link to its playground; Info opens the panel. */
export function AgentCardView({ agent }: { agent: AgentCard }) {
  return (
    <Card className="group relative flex flex-col gap-3 p-4 transition-colors hover:border-primary/40 hover:bg-accent/30" data-testid="agent-card">
      <div className="flex items-start gap-3">
        <div className="flex size-9 shrink-0 items-center justify-center rounded-lg border bg-muted/50 text-muted-foreground group-hover:text-primary">
          <Bot className="size-4.5" />
        </div>
        <div className="min-w-0 flex-1">
          <h2 className="truncate text-sm font-semibold">
            <Link to={agentPath(agent.slug)} className="outline-none after:absolute after:inset-0 after:rounded-lg focus-visible:after:outline-2 focus-visible:after:outline-ring">
              {agent.label ?? agent.name}
            </Link>
          </h2>
          <p className="truncate font-mono text-xs text-muted-foreground">{formatModel(agent.model?.provider, agent.model?.name)}</p>
        </div>
        <Link
          to={`${agentPath(agent.slug)}?info=config`}
          className="relative z-10 flex items-center gap-1 rounded-md px-1.5 py-1 text-xs text-muted-foreground hover:bg-accent hover:text-foreground"
          aria-label={`Info about ${agent.label ?? agent.name}`}
        >
          <Info className="size-3.5" /> Info
        </Link>
      </div>
      {agent.description && <p className="line-clamp-2 text-[13px] text-muted-foreground">{agent.description}</p>}
      <div className="mt-auto flex flex-wrap items-center gap-1.5">
        <ToolChips tools={agent.tools} />
        {agent.counts.native_tools > 0 && (
          <Badge variant="default" title="Provider-side tools (see Info)">
            <Zap /> {agent.counts.native_tools} native
          </Badge>
        )}
        {agent.counts.mcp_toolsets > 0 && <Badge variant="outline">MCP × {agent.counts.mcp_toolsets}</Badge>}
      </div>
      {agent.configured && (
        <div className="flex flex-wrap gap-1.5">
          <Badge variant="default" title="Configured in the registry" data-testid="configured-badge">
            <Database /> configured
          </Badge>
          {agent.version !== null && <Badge variant="mono">v{agent.version}</Badge>}
        </div>
      )}
      {(agent.model?.is_demo || agent.stateless || agent.structured_output || agent.problems.length > 0) && (
        <div className="flex flex-wrap gap-1.5">
          <AgentBadges agent={agent} />
        </div>
      )}
    </Card>
  )
}
