// Citations under an answer: the chunks the Retrieval capability's `search_documents` tool returned
// (its result an object, or the same object as a JSON string), each opening the chunk it cites.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { resetResources } from '@/lib/resource'
import type { AssistantPart, ToolView } from '@/lib/thread'
import { AssistantMessage } from './AssistantMessage'
import { citationsOf, resultChunks } from './citations'

const hit = (chunk_id: string, file: string, page: number | null, chunk_index: number, chunk_total: number, text: string) => ({
  chunk_id,
  source: 'handbook',
  source_name: 'Handbook',
  file,
  page,
  heading: 'Leave',
  chunk_index,
  chunk_total,
  score: 0.82,
  text,
})

const RESULT = { results: [hit('c1', 'guide/leave.pdf', 3, 1, 7, 'Annual leave is 25 days.'), hit('c2', 'guide/sick.md', null, 0, 2, 'Sick leave needs a note.')] }

const search = (over: Partial<ToolView> = {}): ToolView => ({
  callId: 'call-1',
  name: 'search_documents',
  kind: 'function',
  status: 'success',
  args: { query: 'annual leave' },
  result: RESULT,
  error: null,
  durationMs: 30,
  ...over,
})

const answer = (tools: ToolView[]): AssistantPart[] => [
  ...tools.map((tool, i): AssistantPart => ({ type: 'tool', id: `t${i}`, tool })),
  { type: 'text', id: 'x', text: 'You get 25 days of annual leave.', streaming: false },
]

let calls: string[]
beforeEach(() => {
  resetResources()
  calls = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      calls.push(url)
      if (url === '/api/rag/chunks/c1')
        return Response.json({
          id: 'c1',
          source: 'handbook',
          content: 'Annual leave is 25 days a year, taken in whole days.',
          chunk_index: 1,
          chunk_total: 7,
          citation: { source: 'handbook', source_name: 'Handbook', file: 'guide/leave.pdf', page: 3, heading: 'Leave', chunk_index: 1, chunk_total: 7 },
        })
      if (url === '/api/rag/chunks/c2') return Response.json({ error: { code: 'not_found', message: 'No chunk with id c2.' } }, { status: 404 })
      if (url === '/api/tool-invocations/inv-1') return Response.json({ id: 'inv-1', tool_call_id: 'call-1', name: 'search_documents', arguments: {}, result: JSON.stringify(RESULT), status: 'success', error: null })
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
})
afterEach(() => vi.unstubAllGlobals())

const sourcesList = () => within(screen.getByTestId('citations'))

describe('Citations', () => {
  it('lists the chunks a search returned as an object under the answer', () => {
    render(<AssistantMessage parts={answer([search()])} meta={null} streaming={false} />)
    const items = sourcesList().getAllByRole('button')
    expect(items.map((item) => item.textContent)).toEqual(['1Handbook · guide/leave.pdf · p. 3 · chunk 2/7', '2Handbook · guide/sick.md · chunk 1/2'])
  })

  it('reads a result that came as a JSON string the same way', () => {
    render(<AssistantMessage parts={answer([search({ result: JSON.stringify(RESULT) })])} meta={null} streaming={false} />)
    expect(sourcesList().getAllByRole('button')).toHaveLength(2)
    expect(sourcesList().getByText('Handbook · guide/leave.pdf · p. 3 · chunk 2/7')).toBeInTheDocument()
  })

  it('cites each chunk once across searches, and nothing for other tools or failed calls', () => {
    const again = search({ callId: 'call-2', result: { results: [RESULT.results[1], hit('c3', 'guide/pay.md', 1, 0, 1, 'Pay day.')] } })
    const other = search({ callId: 'call-3', name: 'lookup_order', result: RESULT })
    const failed = search({ callId: 'call-4', status: 'error', result: undefined, error: 'boom' })
    expect(citationsOf([search(), again, other, failed]).map((chunk) => chunk.chunk_id)).toEqual(['c1', 'c2', 'c3'])
    expect(resultChunks('not json')).toEqual([])
    expect(resultChunks({ results: [{ text: 'no id' }] })).toEqual([])
    render(<AssistantMessage parts={answer([other, failed])} meta={null} streaming={false} />)
    expect(screen.queryByTestId('citations')).not.toBeInTheDocument()
  })

  it('opens the cited chunk: its text and where it came from', async () => {
    render(<AssistantMessage parts={answer([search()])} meta={null} streaming={false} />)
    await userEvent.click(sourcesList().getByRole('button', { name: /guide\/leave\.pdf/ }))
    const dialog = screen.getByRole('dialog', { name: 'Handbook · guide/leave.pdf · p. 3 · chunk 2/7' })
    expect(await within(dialog).findByTestId('chunk-text')).toHaveTextContent('Annual leave is 25 days a year, taken in whole days.')
    expect(within(dialog).getByTestId('chunk-citation')).toHaveTextContent('Handbook · guide/leave.pdf · p. 3 · chunk 2/7§ Leave')
    expect(calls).toContain('/api/rag/chunks/c1')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
  })

  it("says why a chunk cannot be opened", async () => {
    render(<AssistantMessage parts={answer([search()])} meta={null} streaming={false} />)
    await userEvent.click(sourcesList().getByRole('button', { name: /guide\/sick\.md/ }))
    expect(await within(screen.getByRole('dialog')).findByText('No chunk with id c2.')).toBeInTheDocument()
  })

  it('reads a stored call whose result was kept as a preview whole before citing it', async () => {
    const preview = search({ invocationId: 'inv-1', truncated: true, result: '{"results": [{"chunk_id": "c1", "sou…' })
    render(<AssistantMessage parts={answer([preview])} meta={null} streaming={false} />)
    await waitFor(() => expect(sourcesList().getAllByRole('button')).toHaveLength(2))
    expect(calls).toContain('/api/tool-invocations/inv-1')
  })
})
