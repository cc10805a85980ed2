// The HTTP API the dashboard talks to (docs/api.md). Field names are the API's snake_case.

export interface ModelRef {
  provider: string | null
  name: string
  id: string
  is_demo: boolean
  /** A FallbackModel's other models, in order (beyond the contract; present when known). */
  fallbacks?: { provider: string | null; name: string; id: string }[]
}

export interface AgentProblem {
  code: string
  message: string
  env_var?: string | null
}

export interface AgentCounts {
  tools: number
  native_tools: number
  toolsets: number
  mcp_toolsets: number
  capabilities: number
  subagents: number
}

export interface AgentCard {
  slug: string
  name: string
  module: string
  attribute: string
  description: string | null
  model: ModelRef | null
  tools: string[]
  counts: AgentCounts
  stateless: boolean
  structured_output: boolean
  problems: AgentProblem[]
}

export interface DiscoveryProblem {
  kind: string
  target: string
  file: string | null
  module: string | null
  exception: string | null
  message: string
  traceback: string | null
}

export interface AgentsResponse {
  agents: AgentCard[]
  problems: DiscoveryProblem[]
  targets: string[]
  project_root: string
}

export type JsonSchema = Record<string, unknown>

export interface Instruction {
  kind: 'static' | 'dynamic' | string
  text?: string | null
  name?: string | null
  location?: string | null
}

export interface ToolInfo {
  name: string
  description: string | null
  parameters: JsonSchema | null
  required?: string[]
  schema_error: string | null
  toolset?: string | null
  kind?: string
}

export interface ToolsetInfo {
  kind: 'function' | 'mcp' | 'other' | string
  class: string
  label: string | null
  description: string | null
  tools: string[]
}

export interface NativeToolInfo {
  kind: string
  class: string
  options: Record<string, unknown> | null
}

export interface SubagentInfo {
  name: string
  slug: string | null
  via_tool: string | null
}

export interface AgentInfo extends Omit<AgentCard, 'tools'> {
  model_settings: Record<string, unknown> | null
  retries: Record<string, unknown> | null
  end_strategy: string | null
  tool_timeout?: number | null
  file?: string | null
  output: { type: string; mode: string | null; schema: JsonSchema | null } | null
  deps: { type: string | null; factory: string | null; required: boolean } | null
  instructions: Instruction[]
  tools: ToolInfo[]
  toolsets: ToolsetInfo[]
  native_tools: NativeToolInfo[]
  subagents: SubagentInfo[]
  capabilities: { class: string; module: string | null }[]
  metadata: Record<string, unknown> | null
}

export interface ModelOption {
  id: string
  label: string
  provider: string | null
  source: 'agent' | 'demo' | 'setting' | 'provider' | string
  available: boolean
  missing_env: string | null
}

export interface ModelsResponse {
  default: string | null
  models: ModelOption[]
}

export interface Usage {
  input_tokens: number
  output_tokens: number
  cache_read_tokens?: number
  cache_write_tokens?: number
  reasoning_tokens?: number
  requests?: number
  tool_calls?: number
}

export interface MessageMetadata {
  conversation_id?: string
  message_id?: string
  user_message_id?: string
  model?: string | null
  provider?: string | null
  usage?: Usage | null
  cost?: number | null
  currency?: string | null
  duration_ms?: number | null
  stateless?: boolean
}

export type ToolKind = 'function' | 'native' | 'output'
export type ToolStatus = 'pending' | 'success' | 'error' | 'interrupted'

export interface ToolInvocation {
  id?: string
  /** Absent in a thread's compact form (the invocation `id` names it there). */
  tool_call_id?: string
  kind: ToolKind
  name: string
  arguments: unknown
  result: unknown
  status: ToolStatus
  provider_status?: string | null
  error: string | null
  duration_ms: number | null
  started_at?: string | null
  finished_at?: string | null
  /** In a thread, large arguments or results are previews; GET /api/tool-invocations/{id} has them whole. */
  truncated?: boolean
}

export interface ConversationRow {
  id: string
  agent_key: string
  agent_name: string
  title: string
  status: 'success' | 'error'
  origin: string
  input_tokens: number
  output_tokens: number
  total_tokens: number
  cost: number | null
  message_count: number
  tool_count: number
  created_at: string
  updated_at: string
}

export interface ConversationsResponse {
  conversations: ConversationRow[]
  total: number
  /** False when `total` is a lower bound (a common search term or a broad tools filter). */
  total_exact: boolean
  page: number
  page_size: number
  pages: number
}

export interface Attachment {
  index: number
  name: string
  media_type: string
  size: number
  url: string
}

export type ReplayPart =
  | { type: 'reasoning'; text: string }
  | { type: 'text'; text: string }
  | { type: 'tool'; tool: ToolInvocation }
  | { type: 'native-tool'; tool: ToolInvocation }
  | { type: 'structured-output'; output: unknown }

export interface ReplayUserMessage {
  id: string
  role: 'user'
  status?: string
  content: string
  created_at: string
  attachments?: Attachment[]
}

export interface ReplayAssistantMessage {
  id: string
  role: 'assistant'
  status?: string
  content: string
  created_at: string
  parts?: ReplayPart[]
  usage?: Usage | null
  input_tokens?: number | null
  output_tokens?: number | null
  cost?: number | null
  duration_ms?: number | null
  meta?: { model?: string | null; provider?: string | null; finish_reason?: string | null } | null
}

export interface ReplayErrorMessage {
  id: string
  role: 'error'
  content: string
  created_at?: string
  details?: { class?: string | null; traceback?: string | null; recoverable?: boolean | null } | null
}

export interface ReplayNoticeMessage {
  id: string
  role: 'notice'
  content: string
  created_at?: string
  meta?: { kind?: string } | null
}

export type ReplayMessage = ReplayUserMessage | ReplayAssistantMessage | ReplayErrorMessage | ReplayNoticeMessage

export interface ConversationTotals {
  input_tokens: number
  output_tokens: number
  cost: number | null
  duration_ms: number | null
  tool_calls: number
}

export interface ConversationDetail {
  conversation: ConversationRow & { stateless?: boolean; agent_available?: boolean }
  messages: ReplayMessage[]
  totals: ConversationTotals
}

export interface Health {
  status: string
  version: string
  database: string
  revision: string | null
  head: string | null
  up_to_date: boolean
}

export interface DeleteResult {
  deleted: Record<string, number>
}
