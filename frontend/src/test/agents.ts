// For tests: an agent as `GET /api/agents/{slug}` describes a demo agent, on the demo model, with
// no tools and a text output; `over` changes what a test needs.
import type { AgentInfo } from '@/lib/api/types'

export function demoAgent(slug: string, over: Partial<AgentInfo> = {}): AgentInfo {
  return {
    slug, name: 'support_agent', label: null, suggestions: [], module: 'demo', attribute: 'support_agent', file: null, description: 'Helps.',
    model: { provider: 'synapse', name: 'synapse-demo', id: 'demo', is_demo: true, fallbacks: [] },
    counts: { tools: 0, native_tools: 0, toolsets: 0, mcp_toolsets: 0, capabilities: 0, subagents: 0 },
    stateless: false, structured_output: false, problems: [], configured: false, version: null,
    model_settings: null, model_settings_dynamic: null, retries: { tools: 1, output: null }, end_strategy: 'early', tool_timeout: null,
    output: { type: 'str', mode: null, schema: null, schema_error: null, tools: [], text_function: null, validators: [], deferred: null },
    deps: { type: null, factory: null, required: false, source: null, lifetime: null }, deps_schema: null,
    instructions: [], tools: [], toolsets: [], native_tools: [], subagents: [], capabilities: [], metadata: null, unavailable: [],
    ...over,
  }
}
