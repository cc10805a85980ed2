// The HTTP API the dashboard talks to (docs/api.md), under the names the dashboard uses. Every
// type here comes from schema.gen.ts, which `npm run api-types` generates from openapi.json (the
// app's own OpenAPI document, written by `make api-types`): change the Python response models,
// not these. Field names are the API's snake_case.
import type { components } from './schema.gen'

export type { MessageMetadata, Usage } from './stream-types'

type Schemas = components['schemas']

/**
 * What the API sends for a schema: pydantic writes every field of a response model, defaults
 * included, so a property the schema leaves optional because it has a default is always there.
 * (Not for `ToolInvocation`, whose optional keys really are left out.)
 */
type Sent<T> = T extends (infer U)[] ? Sent<U>[] : T extends object ? { [K in keyof T]-?: Sent<T[K]> } : T

/** A JSON Schema document (a tool's parameters, an output type). */
export type JsonSchema = Record<string, unknown>

// -- agents ---------------------------------------------------------------------------------

export type ModelRef = Sent<Schemas['ModelRef']>
export type AgentProblem = Sent<Schemas['AgentProblem']>
export type AgentCounts = Sent<Schemas['Counts']>
export type AgentCard = Sent<Schemas['AgentCard']>
export type DiscoveryProblem = Sent<Schemas['DiscoveryProblem']>
export type AgentsResponse = Sent<Schemas['AgentList']>
export type Instruction = Sent<Schemas['InstructionInfo']>
export type ToolInfo = Sent<Schemas['ToolInfo']>
export type ToolsetInfo = Sent<Schemas['ToolsetInfo']>
export type NativeToolInfo = Sent<Schemas['NativeToolInfo']>
export type SubagentInfo = Sent<Schemas['SubagentInfo']>
export type AgentInfo = Sent<Schemas['AgentInfo']>
export type ModelToolsAnswer = Sent<Schemas['ModelToolsAnswer']>
export type ModelTool = Sent<Schemas['ModelTool']>
export type ModelOption = Schemas['ModelOption']
export type ModelsResponse = Schemas['ModelList']

// -- history --------------------------------------------------------------------------------

export type ToolKind = Schemas['ToolInvocation']['kind']
export type ToolStatus = Schemas['ToolInvocation']['status']

/** One tool invocation in full (GET /api/tool-invocations/{id}). */
export type ToolInvocationFull = Schemas['ToolInvocationFull']

/**
 * A tool invocation in either form: compact inside a thread (no `tool_call_id`, no timestamps;
 * `error`, `provider_status` and `truncated` only when set; large arguments or results are
 * previews) or in full.
 */
export type ToolInvocation = Schemas['ToolInvocation'] &
  Partial<Omit<ToolInvocationFull, keyof Schemas['ToolInvocation']>>

export type ConversationRow = Schemas['ConversationRow']
export type ConversationsResponse = Schemas['ConversationPage']

/** Where a conversation was started: the playground, or an app, task or workflow run. */
export const ORIGINS = ['playground', 'app', 'task', 'workflow', 'eval', 'mcp'] as const
export type Origin = (typeof ORIGINS)[number]

/** One axis of a conversation's scope (its tenant, actor or subject), in the app's words. */
export type ScopeRef = NonNullable<ConversationRow['tenant']>
export const SCOPE_AXES = ['tenant', 'actor', 'subject'] as const
export type ScopeAxis = (typeof SCOPE_AXES)[number]
export type Attachment = Schemas['Attachment']

export type ReplayPart = Schemas['TextPart'] | Schemas['ToolPart'] | Schemas['StructuredOutputPart']

/** What Synapse writes into an answer's `meta` (the schema types it as any JSON object). */
export interface AnswerMeta {
  model?: string | null
  provider?: string | null
  finish_reason?: string | null
  [key: string]: unknown
}

/** What Synapse writes into an error card's `details`. */
export interface ErrorDetails {
  class?: string | null
  traceback?: string | null
  recoverable?: boolean | null
  [key: string]: unknown
}

/** What Synapse writes into a notice's `meta`. */
export interface NoticeMeta {
  kind?: string
  [key: string]: unknown
}

export type ReplayUserMessage = Schemas['UserMessage']
export type ReplayAssistantMessage = Omit<Schemas['AssistantMessage'], 'meta'> & { meta: AnswerMeta | null }
export type ReplayErrorMessage = Omit<Schemas['ErrorMessage'], 'details'> & { details: ErrorDetails | null }
export type ReplayNoticeMessage = Omit<Schemas['NoticeMessage'], 'meta'> & { meta: NoticeMeta | null }
export type ReplayMessage = ReplayUserMessage | ReplayAssistantMessage | ReplayErrorMessage | ReplayNoticeMessage

export type ConversationTotals = Schemas['Totals']

export interface ConversationDetail extends Omit<Schemas['Thread'], 'messages'> {
  messages: ReplayMessage[]
}

export type ThreadConversation = ConversationDetail['conversation']
/** The conversation a fork was made from, and the user message it was cut at. */
export type ForkSource = NonNullable<ThreadConversation['forked_from']>
/** A fork of this conversation (oldest first in `forks`). */
export type ForkSummary = NonNullable<ThreadConversation['forks']>[number]

export type DeleteResult = Schemas['Deleted']

// -- the registry ---------------------------------------------------------------------------

/** A provider as the API shows it: whether a key is set and its last four characters, never the key. */
export type Provider = Sent<Schemas['Provider']>
/** Per million tokens; amounts are decimal strings (never floats). */
export type Price = Sent<Schemas['Price']>
export type RegistryModel = Sent<Schemas['RegistryModel']>
export type Preset = Sent<Schemas['Preset']>
export type Tone = Sent<Schemas['Tone']>
export type ConfiguredAgent = Sent<Schemas['ConfiguredAgent']>
export type AgentVersions = Sent<Schemas['AgentVersionList']>
export type ProviderTest = Sent<Schemas['ProviderTestResult']>
export type RegistrySetting = Sent<Schemas['RegistrySetting']>
export type RegistrySettings = Sent<Schemas['RegistrySettingList']>

/** A tool a configured agent may name (the agent form's tool picker). */
export type RegistryTool = Sent<Schemas['RegistryTool']>
export type RegistryTools = Sent<Schemas['RegistryToolList']>

// -- the server -----------------------------------------------------------------------------

export type Health = Schemas['Health']
export type DashboardArea = Sent<Schemas['DashboardAreaInfo']>
export type Extensions = Sent<Schemas['Extensions']>
