import { render, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { AgentInfo } from '@/lib/api/types'
import { ToolsTab } from './ToolsTab'

const tool = (name: string, facts: Partial<AgentInfo['tools'][number]> = {}): AgentInfo['tools'][number] => ({
  name,
  description: null,
  parameters: { type: 'object', properties: {} },
  required: [],
  schema_error: null,
  toolset: 'agent',
  kind: 'function',
  takes_ctx: false,
  requires_approval: false,
  location: null,
  max_retries: null,
  prepare: null,
  native_fallback: null,
  ...facts,
})

const agent = {
  slug: 'app.writer',
  tools: [tool('lookup', { max_retries: 4, prepare: 'only_admins' }), tool('plain'), tool('search_locally', { native_fallback: 'web_search' })],
  native_tools: [{ kind: 'web_search', class: 'WebSearchTool', options: {} }],
  toolsets: [
    { kind: 'function', class: 'FunctionToolset', label: 'agent', description: null, tools: ['lookup', 'plain'], index: null, capability: null, native_fallback: null },
    { kind: 'mcp', class: 'MCPToolset', label: "MCPToolset 'npx -y server'", description: 'npx -y server', tools: [], index: 0, capability: 'MCP', native_fallback: null },
  ],
  subagents: [],
  structured_output: true,
  output: {
    type: 'ToolOutput(shout) | Card',
    mode: 'tool',
    schema: { type: 'object', properties: {} },
    schema_error: null,
    text_function: null,
    tools: [
      { name: 'loud', description: 'Shout the answer.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, strict: null, function: 'shout' },
      { name: 'final_result_Card', description: 'Card', parameters: { type: 'object', properties: { name: { type: 'string' } } }, strict: null, function: null },
    ],
    validators: [
      { name: 'not_empty', takes_ctx: false, location: 'app/writer.py:40' },
      { name: 'checked', takes_ctx: true, location: 'app/writer.py:45' },
    ],
  },
} as unknown as AgentInfo

describe('the tools tab', () => {
  it("shows each tool's retry budget, prepare function and native fallback", () => {
    render(<ToolsTab agent={agent} />)
    const [lookup, plain, fallback] = screen.getAllByTestId('info-tool') as [HTMLElement, HTMLElement, HTMLElement]
    expect(within(lookup).getByTestId('info-tool-facts')).toHaveTextContent('retries 4prepare only_admins')
    expect(within(plain).queryByTestId('info-tool-facts')).not.toBeInTheDocument()
    expect(fallback).toHaveTextContent('fallback for native web_search')
    expect(screen.getAllByTestId('info-native-tool')).toHaveLength(1)
  })

  it('lists each MCP server once, with a Connect button', () => {
    render(<ToolsTab agent={agent} />)
    const servers = screen.getAllByTestId('info-mcp-server')
    expect(servers).toHaveLength(1)
    expect(within(servers[0] as HTMLElement).getByRole('button', { name: 'Connect' })).toBeEnabled()
  })

  it('shows the output tools the model is offered and the output validators', () => {
    render(<ToolsTab agent={agent} />)
    const tools = screen.getAllByTestId('output-tool')
    expect(tools).toHaveLength(2)
    expect(tools[0]).toHaveTextContent('loud')
    expect(tools[0]).toHaveTextContent('calls shout')
    expect(tools[0]).toHaveTextContent('text*')
    expect(tools[1]).not.toHaveTextContent('calls')
    expect(screen.getByText('Validators 2')).toBeInTheDocument()
    const validators = screen.getAllByTestId('output-validator')
    expect(validators[0]).toHaveTextContent('not_empty')
    expect(validators[0]).not.toHaveTextContent('ctx')
    expect(validators[1]).toHaveTextContent('checkedctxapp/writer.py:45')
  })

  it('names the function a text answer goes through', () => {
    const texter = { ...agent, structured_output: false, output: { ...agent.output, type: 'TextOutput(polish)', mode: 'text', schema: null, tools: [], validators: [], text_function: 'polish' } }
    render(<ToolsTab agent={texter as AgentInfo} />)
    expect(screen.getByText(/The text answer is passed to/)).toHaveTextContent('The text answer is passed to polish.')
  })

  it('says that a text answer may pause for approval when the output type lists DeferredToolRequests', () => {
    const note = 'A run may also pause before this output, with DeferredToolRequests: tool calls that wait for approval.'
    const pausing = { ...agent, structured_output: false, output: { ...agent.output, type: 'str', mode: 'text', schema: null, tools: [], validators: [], deferred: note } }
    render(<ToolsTab agent={pausing as AgentInfo} />)
    expect(screen.getByText(/^str/)).toBeInTheDocument()
    expect(screen.getByTestId('output-deferred')).toHaveTextContent(note)
  })
})
