import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ModelTools } from './ModelTools'

const answer = {
  slug: 'app.support',
  name: 'support',
  tools: [
    {
      name: 'db_query',
      description: 'Run a query.',
      parameters: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] },
      strict: true,
      kind: 'function',
      sequential: false,
      dynamic: false,
      origin: { toolset: 'FunctionToolset', id: null, label: 'FunctionToolset', name: 'query', wrappers: [{ class: 'PrefixedToolset', kind: 'toolset', detail: "prefix 'db'" }] },
    },
  ],
  output_tools: [],
  native_tools: [{ kind: 'web_search', class: 'WebSearchTool', options: {} }],
  allow_text_output: true,
  output_mode: 'text',
  dynamic: false,
  note: null,
  mcp_skipped: ['MCPToolset mcp.example.com'],
  resolve_ms: 12,
}

let asked: string[]

beforeEach(() => {
  asked = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      asked.push(url)
      if (url === '/api/agents/app.support/model-tools') return Response.json(answer)
      return Response.json({ error: { code: 'resolve_failed', message: 'ValueError: prepare failed', exception: 'ValueError' } }, { status: 422 })
    }),
  )
})

afterEach(() => vi.unstubAllGlobals())

describe('tools as the model sees them', () => {
  it('resolves on request and shows each definition with where it came from', async () => {
    render(<ModelTools slug="app.support" />)
    expect(asked).toEqual([])
    await userEvent.click(screen.getByRole('button', { name: 'Resolve' }))
    const tool = await screen.findByTestId('model-tool')
    expect(tool).toHaveTextContent('db_query')
    expect(tool).toHaveTextContent('strict')
    expect(screen.getByTestId('model-tool-origin')).toHaveTextContent("FunctionToolset → prefix 'db'")
    expect(screen.getByText(/Not connected \(MCP servers\): MCPToolset mcp.example.com/)).toBeInTheDocument()
    expect(screen.getAllByTestId('model-native-tool').map((item) => item.textContent)).toEqual(['web_search'])
  })

  it('says why it could not resolve', async () => {
    render(<ModelTools slug="app.broken" />)
    await userEvent.click(screen.getByRole('button', { name: 'Resolve' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('prepare failed')
  })
})
