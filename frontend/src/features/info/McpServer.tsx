// One MCP server of an agent: named from its command line or URL, never connected until "Connect"
// is clicked; then the tools the server lists, or why it could not be reached.
import { useState } from 'react'
import { Plug } from '@/components/icons'
import type { ToolsetInfo } from '@/lib/api/types'
import { messageOf } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { connectMcp, type McpServerTools } from './mcp'
import { ParamTable } from './ParamTable'

export function McpServer({ slug, toolset }: { slug: string; toolset: ToolsetInfo }) {
  const [answer, setAnswer] = useState<McpServerTools | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [working, setWorking] = useState(false)
  const index = toolset.index
  const connect = async () => {
    if (index === null) return
    setWorking(true)
    setError(null)
    try {
      setAnswer(await connectMcp(slug, index))
    } catch (cause) {
      setAnswer(null)
      setError(messageOf(cause))
    } finally {
      setWorking(false)
    }
  }
  return (
    <li className="space-y-1.5 rounded-md border p-2.5" data-testid="info-mcp-server">
      <div className="flex items-center gap-2">
        <Plug className="size-3.5 shrink-0 text-muted-foreground" />
        <span className="min-w-0 flex-1 truncate font-mono text-[13px] font-medium">{toolset.label}</span>
        <Badge>MCP</Badge>
      </div>
      {toolset.description && <p className="break-all font-mono text-[11px] text-muted-foreground">{toolset.description}</p>}
      {(toolset.capability || toolset.native_fallback) && (
        <p className="text-[11px] text-muted-foreground">
          {toolset.capability && <>through the {toolset.capability} capability</>}
          {toolset.capability && toolset.native_fallback && ' · '}
          {toolset.native_fallback && <>used when the model has no native {toolset.native_fallback}</>}
        </p>
      )}
      {index !== null && (
        <Button size="sm" variant="secondary" onClick={() => void connect()} disabled={working}>
          {working ? 'Connecting…' : answer ? 'Connect again' : 'Connect'}
        </Button>
      )}
      {error && (
        <p className="rounded-md border border-destructive/40 bg-destructive-soft/60 px-2 py-1.5 text-xs" role="alert">
          {error}
        </p>
      )}
      {answer && (
        <div className="space-y-2">
          <p className="text-xs text-muted-foreground">
            {answer.tools.length === 1 ? '1 tool' : `${answer.tools.length} tools`} · {answer.connect_ms} ms
          </p>
          <ul className="space-y-2">
            {answer.tools.map((tool) => (
              <li key={tool.name} className="space-y-1.5 rounded-md border border-dashed p-2" data-testid="mcp-tool">
                <p className="font-mono text-[13px] font-medium">{tool.name}</p>
                {tool.description && <p className="whitespace-pre-line text-xs text-muted-foreground">{tool.description}</p>}
                <ParamTable schema={tool.input_schema} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  )
}

