// Connecting to one of an agent's MCP servers on request (POST /api/agents/{slug}/mcp/{index}/connect):
// the server's tools as it lists them. Reading the agent never connects; only this does.
import { request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

export type McpServerTools = components['schemas']['McpServerTools']
export type McpTool = components['schemas']['McpToolInfo']

export function connectMcp(slug: string, index: number): Promise<McpServerTools> {
  return request<McpServerTools>(`/api/agents/${encodeURIComponent(slug)}/mcp/${index}/connect`, { method: 'POST' })
}
