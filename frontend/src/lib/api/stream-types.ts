// Shapes the OpenAPI schema cannot state: the chat stream's message metadata (a server-sent event
// carries JSON that OpenAPI describes only as a string) and the usage Synapse reports in it.

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
