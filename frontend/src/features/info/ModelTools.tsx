// The tool definitions the model receives on a first request, resolved by the server with
// pydantic-ai's own toolset machinery (GET /api/agents/{slug}/model-tools): names after prefixes and
// renames, what filters and prepare functions leave, each with the toolsets and wrappers it came
// through. Resolving runs the agent's prepare and dynamic-toolset functions, so it waits for a click.
import { useState } from 'react'
import { api } from '@/lib/api/client'
import type { ModelTool, ModelToolsAnswer } from '@/lib/api/types'
import { Zap } from '@/components/icons'
import { messageOf } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { ParamTable } from './ParamTable'
import { InfoSection } from './Section'

function origin(tool: ModelTool): string | null {
  const from = tool.origin
  if (!from) return null
  const steps = from.wrappers.map((step) => step.detail || step.class)
  const base = from.label || from.toolset
  return [base, ...steps].join(' → ')
}

function Entry({ tool }: { tool: ModelTool }) {
  const path = origin(tool)
  return (
    <li className="space-y-1.5 rounded-md border p-2.5" data-testid="model-tool">
      <div className="flex flex-wrap items-center gap-1.5">
        <span className="min-w-0 flex-1 truncate font-mono text-[13px] font-medium">{tool.name}</span>
        {tool.kind !== 'function' && <Badge variant="secondary">{tool.kind}</Badge>}
        {tool.strict && <Badge variant="outline">strict</Badge>}
        {tool.dynamic && <Badge variant="outline">dynamic</Badge>}
      </div>
      {path && <p className="break-words font-mono text-[11px] text-muted-foreground" data-testid="model-tool-origin">{path}</p>}
      {tool.description && <p className="whitespace-pre-line text-xs text-muted-foreground">{tool.description}</p>}
      <ParamTable schema={tool.parameters as never} />
    </li>
  )
}

export function ModelTools({ slug }: { slug: string }) {
  const [answer, setAnswer] = useState<ModelToolsAnswer | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [working, setWorking] = useState(false)
  const resolve = async () => {
    setWorking(true)
    setError(null)
    try {
      setAnswer(await api.modelTools(slug))
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      setWorking(false)
    }
  }
  const tools = answer ? [...answer.tools, ...answer.output_tools] : []
  return (
    <InfoSection title="As the model sees them" count={answer ? tools.length : undefined}>
      {!answer && (
        <div className="space-y-2 text-xs text-muted-foreground">
          <p>The exact tool definitions of a first request, after prefixes, renames, filters and prepare functions.</p>
          <Button size="sm" variant="secondary" onClick={() => void resolve()} disabled={working}>
            {working ? 'Resolving…' : 'Resolve'}
          </Button>
        </div>
      )}
      {error && <p className="rounded-md border border-destructive/40 bg-destructive-soft/60 px-2 py-1.5 text-xs" role="alert">{error}</p>}
      {answer && (
        <div className="space-y-2">
          {answer.note && <p className="text-xs text-muted-foreground">{answer.note}</p>}
          {answer.mcp_skipped.length > 0 && (
            <p className="text-xs text-muted-foreground">Not connected (MCP servers): {answer.mcp_skipped.join(', ')}</p>
          )}
          {answer.native_tools.length > 0 && (
            <ul className="flex flex-wrap gap-1" aria-label="Native tools sent">
              {answer.native_tools.map((tool) => (
                <li key={tool.kind + tool.class} data-testid="model-native-tool">
                  <Badge variant="outline" title={tool.class}>
                    <Zap className="size-3 text-primary" />
                    {tool.kind}
                  </Badge>
                </li>
              ))}
            </ul>
          )}
          {tools.length === 0 ? (
            <p className="text-sm text-muted-foreground">{answer.native_tools.length ? 'No function or output tools.' : 'The model receives no tools.'}</p>
          ) : (
            <ul className="space-y-2">
              {tools.map((tool) => (
                <Entry key={`${tool.kind}-${tool.name}`} tool={tool} />
              ))}
            </ul>
          )}
        </div>
      )}
    </InfoSection>
  )
}
