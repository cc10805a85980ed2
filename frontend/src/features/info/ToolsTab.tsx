import { Bot, Plug, Wrench, Zap } from '@/components/icons'
import { Link } from 'react-router'
import type { AgentInfo, ToolInfo } from '@/lib/api/types'
import { JsonView } from '@/components/json/JsonView'
import { Badge } from '@/components/ui/badge'
import { agentPath } from '@/features/conversations/paths'
import { McpServer } from './McpServer'
import { ModelTools } from './ModelTools'
import { hasOutputDetails, OutputSection } from './OutputSection'
import { ParamTable } from './ParamTable'
import { InfoSection } from './Section'

function ToolEntry({ tool }: { tool: ToolInfo }) {
  return (
    <li className="space-y-2 rounded-md border p-2.5" data-testid="info-tool">
      <div className="flex items-center gap-2">
        <Wrench className="size-3.5 shrink-0 text-muted-foreground" />
        <span className="min-w-0 flex-1 truncate font-mono text-[13px] font-medium">{tool.name}</span>
        {tool.toolset && tool.toolset !== 'agent' && <Badge variant="outline">{tool.toolset}</Badge>}
        {tool.kind && tool.kind !== 'function' && <Badge variant="secondary">{tool.kind}</Badge>}
      </div>
      {(tool.max_retries !== null || tool.prepare || tool.native_fallback) && (
        <div className="flex flex-wrap gap-1" data-testid="info-tool-facts">
          {tool.max_retries !== null && <Badge variant="outline">retries {tool.max_retries}</Badge>}
          {tool.prepare && <Badge variant="outline">prepare {tool.prepare}</Badge>}
          {tool.native_fallback && <Badge variant="outline">fallback for native {tool.native_fallback}</Badge>}
        </div>
      )}
      {tool.description && <p className="whitespace-pre-line text-xs text-muted-foreground">{tool.description}</p>}
      {tool.schema_error ? (
        <p className="rounded-md border border-warning/40 bg-warning-soft/60 px-2 py-1.5 text-xs">Schema unavailable: {tool.schema_error}</p>
      ) : (
        <ParamTable schema={tool.parameters} required={tool.required} />
      )}
    </li>
  )
}

export function ToolsTab({ agent }: { agent: AgentInfo }) {
  const mcp = agent.toolsets.filter((toolset) => toolset.kind === 'mcp')
  const others = agent.toolsets.filter((toolset) => toolset.kind === 'other')
  const output = hasOutputDetails(agent)
  const nothing = !agent.tools.length && !agent.native_tools.length && !agent.toolsets.length && !agent.subagents.length && !output
  return (
    <div className="space-y-5">
      {nothing && <p className="text-sm text-muted-foreground">This agent has no tools.</p>}
      {agent.tools.length > 0 && (
        <InfoSection title="Tools" count={agent.tools.length}>
          <ul className="space-y-2">
            {agent.tools.map((tool) => (
              <ToolEntry key={tool.name} tool={tool} />
            ))}
          </ul>
        </InfoSection>
      )}
      {agent.native_tools.length > 0 && (
        <InfoSection title="Native tools" count={agent.native_tools.length}>
          <ul className="space-y-2">
            {agent.native_tools.map((tool) => (
              <li key={tool.kind + tool.class} className="space-y-2 rounded-md border border-dashed border-primary/40 bg-primary/5 p-2.5" data-testid="info-native-tool">
                <div className="flex items-center gap-2">
                  <Zap className="size-3.5 text-primary" />
                  <span className="font-mono text-[13px] font-medium">{tool.kind}</span>
                  <Badge className="ml-auto">⚡ Provider tool</Badge>
                </div>
                <p className="font-mono text-[11px] text-muted-foreground">{tool.class}</p>
                {tool.options && Object.keys(tool.options).length > 0 && <JsonView value={tool.options} openDepth={1} />}
              </li>
            ))}
          </ul>
        </InfoSection>
      )}
      {(mcp.length > 0 || others.length > 0) && (
        <InfoSection title="Toolsets" count={mcp.length + others.length}>
          <ul className="space-y-2">
            {mcp.map((toolset) => (
              <McpServer key={`mcp-${toolset.index}`} slug={agent.slug} toolset={toolset} />
            ))}
            {others.map((toolset, i) => (
              <li key={`${toolset.class}-${i}`} className="space-y-1.5 rounded-md border p-2.5">
                <div className="flex items-center gap-2">
                  <Plug className="size-3.5 text-muted-foreground" />
                  <span className="truncate font-mono text-[13px] font-medium">{toolset.label ?? toolset.class}</span>
                  <Badge variant="outline" className="ml-auto">
                    {toolset.class}
                  </Badge>
                </div>
                {toolset.description && <p className="break-all font-mono text-[11px] text-muted-foreground">{toolset.description}</p>}
                {toolset.tools.length > 0 && <p className="text-xs text-muted-foreground">{toolset.tools.join(', ')}</p>}
              </li>
            ))}
          </ul>
        </InfoSection>
      )}
      {agent.subagents.length > 0 && (
        <InfoSection title="Sub-agents" count={agent.subagents.length}>
          <ul className="space-y-1.5">
            {agent.subagents.map((sub) => (
              <li key={sub.name} className="flex items-center gap-2 rounded-md border px-2.5 py-1.5 text-xs">
                <Bot className="size-3.5 text-primary" />
                {sub.slug ? (
                  <Link to={`${agentPath(sub.slug)}?info=config`} className="font-mono font-medium text-primary hover:underline">
                    {sub.name}
                  </Link>
                ) : (
                  <span className="font-mono">{sub.name}</span>
                )}
                <Badge variant="secondary">Agent tool</Badge>
                {sub.via_tool && <span className="ml-auto font-mono text-[11px] text-muted-foreground">via {sub.via_tool}</span>}
              </li>
            ))}
          </ul>
        </InfoSection>
      )}
      <ModelTools slug={agent.slug} />
      {output && <OutputSection output={agent.output} />}
    </div>
  )
}
