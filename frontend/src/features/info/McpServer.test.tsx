import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ToolsetInfo } from '@/lib/api/types'
import { McpServer } from './McpServer'

const server = (index: number): ToolsetInfo => ({
  kind: 'mcp',
  class: 'MCPToolset',
  label: "MCPToolset 'python notes.py'",
  description: 'python notes.py',
  tools: [],
  index,
  capability: 'MCP',
  native_fallback: null,
})

const listed = {
  slug: 'app.notes',
  index: 0,
  label: "MCPToolset 'python notes.py'",
  description: 'python notes.py',
  connect_ms: 840,
  tools: [
    {
      name: 'add_note',
      description: 'Store a note.',
      input_schema: { type: 'object', properties: { text: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['text'] },
    },
    { name: 'count_notes', description: null, input_schema: { type: 'object', properties: {} } },
  ],
}

let asked: { url: string; method: string }[]

beforeEach(() => {
  asked = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      asked.push({ url, method: init?.method ?? 'GET' })
      if (url === '/api/agents/app.notes/mcp/0/connect') return Response.json(listed)
      return Response.json(
        { error: { code: 'mcp_unreachable', message: "MCPToolset 'python notes.py' could not be reached: RuntimeError: Client failed to connect", exception: 'RuntimeError' } },
        { status: 502 },
      )
    }),
  )
})

afterEach(() => vi.unstubAllGlobals())

describe('an MCP server in the info panel', () => {
  it('connects only when asked, then lists the tools the server reports', async () => {
    render(<McpServer slug="app.notes" toolset={server(0)} />)
    expect(screen.getByText('python notes.py')).toBeInTheDocument()
    expect(screen.getByText(/through the MCP capability/)).toBeInTheDocument()
    expect(asked).toEqual([])
    await userEvent.click(screen.getByRole('button', { name: 'Connect' }))
    const tools = await screen.findAllByTestId('mcp-tool')
    expect(asked).toEqual([{ url: '/api/agents/app.notes/mcp/0/connect', method: 'POST' }])
    expect(tools.map((tool) => tool.querySelector('p')?.textContent)).toEqual(['add_note', 'count_notes'])
    expect(tools[0]).toHaveTextContent('Store a note.')
    expect(tools[0]).toHaveTextContent('text*')
    expect(screen.getByText('2 tools · 840 ms')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Connect again' })).toBeEnabled()
  })

  it('says why a server could not be reached', async () => {
    render(<McpServer slug="app.notes" toolset={server(1)} />)
    await userEvent.click(screen.getByRole('button', { name: 'Connect' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('could not be reached: RuntimeError: Client failed to connect')
    expect(screen.queryByTestId('mcp-tool')).not.toBeInTheDocument()
  })
})
