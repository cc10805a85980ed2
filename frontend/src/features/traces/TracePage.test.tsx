// One trace against a fake server: the tree as a nested waterfall, folding, selecting a run, a
// tool call and a model call (whose debug log is read when it is selected), and a missing run.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { ModelCall, TraceNode } from './api'
import { callOf, delegation, modelNode, runNode, toolNode } from './sample'
import TracePage from './TracePage'

let tree: TraceNode
let call: ModelCall
let paths: string[]

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.pathname + location.search}</output>
}

function renderPage(path = '/traces/run-a') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/traces/:runId" element={<TracePage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )
}

const rows = () => screen.getAllByTestId('trace-node')
const row = (key: string) => rows().find((one) => one.getAttribute('data-key') === key)!
const detail = () => screen.getByTestId('node-detail')

beforeEach(() => {
  resetResources()
  tree = delegation()
  call = callOf()
  paths = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const path = url.split('?')[0]!
      paths.push(path)
      if (path === `/api/traces/${tree.id}`) return Response.json({ root: tree })
      if (path === `/api/traces/calls/${call.id}`) return Response.json(call)
      return Response.json({ error: { code: 'not_found', message: `No trace for run ${path.split('/').at(-1)}.` } }, { status: 404 })
    }),
  )
})

afterEach(() => vi.unstubAllGlobals())

describe('TracePage', () => {
  it('draws the tree as a nested waterfall: A → tool → B → tool → C', async () => {
    renderPage()
    await screen.findByTestId('trace-view')
    expect(screen.getByTestId('trace-root-name')).toHaveTextContent('planner')
    expect(screen.getByTestId('trace-runs')).toHaveTextContent('3 (depth 2)')
    expect(screen.getByTestId('trace-calls')).toHaveTextContent('5 / 2')
    expect(screen.getByTestId('trace-total-cost')).toHaveTextContent('unpriced')
    const runs = rows().filter((one) => one.dataset.kind === 'run')
    expect(runs.map((one) => [within(one).getByTestId('trace-node-name').textContent, one.dataset.depth, one.dataset.level])).toEqual([
      ['planner', '0', '0'],
      ['researcher', '1', '2'],
      ['checker', '2', '4'],
    ])
    const tools = rows().filter((one) => one.dataset.kind === 'tool')
    expect(tools.map((one) => [within(one).getByTestId('trace-node-name').textContent, one.dataset.level])).toEqual([
      ['research', '1'],
      ['check_facts', '3'],
    ])
    // Bars sit where each node ran on the root's 200 ms; text says how long.
    const checker = row('run:run-c')
    expect(within(checker).getByTestId('trace-bar')).toHaveStyle({ left: '52.5%', width: '10%' })
    expect(within(checker).getByTestId('trace-duration')).toHaveTextContent('20 ms')
    expect(within(row('run:run-a')).getByTestId('trace-bar')).toHaveStyle({ left: '0%', width: '100%' })
    // Tokens and cost on the rows that have them; a priced call shows its price.
    expect(row('model:call-a2')).toHaveTextContent('60 in · 12 out · $0.0042')
    expect(row('model:call-a1')).toHaveTextContent('50 in · 4 out · unpriced')
    expect(row('tool:tool-a')).not.toHaveTextContent(' in ·')
  })

  it('folds and unfolds a branch, and all of them', async () => {
    renderPage()
    await screen.findByTestId('trace-view')
    expect(rows()).toHaveLength(10)
    await userEvent.click(screen.getByRole('button', { name: 'Collapse research' }))
    expect(rows().map((one) => one.dataset.key)).toEqual(['run:run-a', 'model:call-a1', 'tool:tool-a', 'model:call-a2'])
    expect(screen.getByRole('button', { name: 'Expand research' })).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(screen.getByRole('button', { name: 'Expand research' }))
    expect(rows()).toHaveLength(10)
    await userEvent.click(screen.getByRole('button', { name: 'Collapse all' }))
    expect(rows()).toHaveLength(1)
    await userEvent.click(screen.getByRole('button', { name: 'Expand all' }))
    expect(rows()).toHaveLength(10)
  })

  it('shows the root run first: origin, depth, ids (the trace id for a tracing tool) and output', async () => {
    renderPage()
    await screen.findByTestId('trace-view')
    expect(detail()).toHaveAttribute('data-kind', 'run')
    expect(within(detail()).getByTestId('run-origin')).toHaveTextContent('Code')
    expect(within(detail()).getByTestId('run-depth')).toHaveTextContent('0')
    expect(within(detail()).getByTestId('id-agent-run-id')).toHaveTextContent('run-a')
    expect(within(detail()).getByTestId('id-trace-id')).toHaveTextContent('ee20c717854cb2cf8fdf6f72a8126d91')
    expect(detail()).toHaveTextContent('find it in your tracing tool')
    expect(within(detail()).getByTestId('run-output')).toHaveTextContent('Plan ready.')
    expect(within(detail()).getByRole('link', { name: /Open the conversation/ })).toHaveAttribute('href', '/agents/agents.delegation.planner/c/conv-1')
  })

  it('selects a nested run and a tool call, in the URL', async () => {
    renderPage()
    await screen.findByTestId('trace-view')
    await userEvent.click(within(row('run:run-c')).getByRole('button', { name: 'Agent run checker' }))
    expect(detail()).toHaveAttribute('data-kind', 'run')
    expect(within(detail()).getByTestId('run-origin')).toHaveTextContent('Direct')
    expect(within(detail()).getByTestId('run-depth')).toHaveTextContent('2')
    expect(within(detail()).getByTestId('id-parent-run-id')).toHaveTextContent('run-b')
    expect(screen.getByTestId('where')).toHaveTextContent('/traces/run-a?node=run%3Arun-c')
    expect(within(row('run:run-c')).getByRole('button', { name: 'Agent run checker' })).toHaveAttribute('aria-current', 'true')

    await userEvent.click(within(row('tool:tool-b')).getByRole('button', { name: 'Tool call check_facts' }))
    expect(detail()).toHaveAttribute('data-kind', 'tool')
    expect(within(detail()).getByTestId('tool-arguments')).toHaveTextContent('tides follow the moon')
    expect(within(detail()).getByTestId('tool-result')).toHaveTextContent('Checked: the facts hold.')
    expect(detail()).toHaveTextContent('Started a run: checker.')
    // No model call was read for that.
    expect(paths.filter((path) => path.startsWith('/api/traces/calls/'))).toEqual([])
  })

  it('reads a model call when it is selected: settings, history sent, what came back, usage', async () => {
    renderPage()
    await screen.findByTestId('trace-view')
    await userEvent.click(within(row('model:call-a2')).getByRole('button', { name: 'Model call test-model' }))
    const panel = await screen.findByTestId('model-call')
    expect(paths).toContain('/api/traces/calls/call-a2')
    expect(within(panel).getByTestId('call-model')).toHaveTextContent('function:test-model')
    expect(within(panel).getByTestId('call-tokens')).toHaveTextContent('60 in · 12 out')
    expect(within(panel).getByTestId('call-cost')).toHaveTextContent('$0.0042')
    expect(within(panel).getByTestId('call-finish')).toHaveTextContent('stop')
    expect(within(panel).getByTestId('call-settings')).toHaveTextContent('temperature')
    expect(within(panel).getByTestId('id-response-id')).toHaveTextContent('resp_123')
    expect(panel).toHaveTextContent('Plan the work; hand research to the researcher.')
    const sent = within(within(panel).getByTestId('call-history')).getAllByTestId('trace-message')
    expect(sent.map((message) => message.dataset.role)).toEqual(['user', 'assistant', 'user'])
    expect(sent[0]).toHaveTextContent('Plan the tides study')
    expect(sent[1]).toHaveTextContent('Calls research')
    expect(sent[1]).toHaveTextContent('"topic": "tides"')
    expect(sent[2]).toHaveTextContent('research returned')
    const back = within(within(panel).getByTestId('call-turns')).getAllByTestId('trace-message')
    expect(back).toHaveLength(1)
    expect(back[0]).toHaveTextContent('Plan ready. Research done.')
    expect(back[0]).toHaveTextContent('finish: stop')
    expect(within(panel).getByTestId('call-usage')).toHaveTextContent('output_tokens')
    expect(within(panel).queryByTestId('model-call-truncated')).not.toBeInTheDocument()
  })

  it('says when a model call was cut to a preview', async () => {
    call = callOf({ truncated: true, data: { ...callOf().data, history: { truncated: true, bytes: 300_000, preview: '[{"role": "user"' } } })
    renderPage('/traces/run-a?node=model:call-a2')
    const panel = await screen.findByTestId('model-call')
    expect(within(panel).getByTestId('model-call-truncated')).toHaveTextContent('kept as a preview')
    expect(within(within(panel).getByTestId('call-history')).getByTestId('cut-body')).toHaveTextContent('293 KB of JSON')
  })

  it('says which setting keeps the bodies when a model call has none', async () => {
    const { history: _history, turns: _turns, instructions: _instructions, parameters: _parameters, tool_definitions: _tools, ...rest } = callOf().data
    call = callOf({ data: rest })
    renderPage('/traces/run-a?node=model:call-a2')
    const panel = await screen.findByTestId('model-call')
    expect(within(panel).getByTestId('model-call-no-bodies')).toHaveTextContent('debug_playground')
    expect(within(panel).getByTestId('call-tokens')).toHaveTextContent('60 in · 12 out')
  })

  it('keeps quiet about bodies when a model call has them', async () => {
    renderPage('/traces/run-a?node=model:call-a2')
    const panel = await screen.findByTestId('model-call')
    expect(within(panel).queryByTestId('model-call-no-bodies')).not.toBeInTheDocument()
  })

  it('shows a failed node’s error on its row and in its detail', async () => {
    const checkFacts = tree.children[1]!.children[0]!.children[1]!
    Object.assign(checkFacts, { status: 'error', error: 'RuntimeError: checker is down', result: null })
    renderPage('/traces/run-a?node=tool:tool-b')
    await screen.findByTestId('trace-view')
    expect(row('tool:tool-b')).toHaveAttribute('data-status', 'error')
    expect(within(row('tool:tool-b')).getByTestId('trace-node-error')).toHaveTextContent('RuntimeError: checker is down')
    expect(within(detail()).getByTestId('trace-error')).toHaveTextContent('RuntimeError: checker is down')
    expect(within(detail()).queryByTestId('tool-result')).not.toBeInTheDocument()
    expect(screen.getByText('1 failed node inside')).toBeInTheDocument()
  })

  it('moves the selection with the arrow keys', async () => {
    renderPage()
    await screen.findByTestId('trace-view')
    within(row('run:run-a')).getByRole('button', { name: 'Agent run planner' }).focus()
    await userEvent.keyboard('{ArrowDown}{ArrowDown}')
    await waitFor(() => expect(detail()).toHaveAttribute('data-kind', 'tool'))
    expect(within(row('tool:tool-a')).getByRole('button', { name: 'Tool call research' })).toHaveFocus()
    await userEvent.keyboard('{ArrowLeft}')
    expect(rows()).toHaveLength(4)
    await userEvent.keyboard('{ArrowRight}')
    expect(rows()).toHaveLength(10)
  })

  it('draws a deep tree to where the answer stops, and opens the trace of the run it stops at', async () => {
    // run-0 → tool → run-1 → … → run-32, which the server shows without the 5,903 nodes under it.
    let node = runNode({ id: 'run-32', name: 'agent', depth: 32, hidden: 5903 })
    for (let level = 31; level >= 0; level -= 1) {
      const tool = toolNode({ id: `tool-${level}`, name: 'delegate', agent_run_id: `run-${level}`, children: [node] })
      node = runNode({ id: `run-${level}`, name: 'agent', depth: level, children: [modelNode({ id: `call-${level}` }), tool] })
    }
    tree = node
    renderPage('/traces/run-0')
    await screen.findByTestId('trace-view')
    expect(screen.getByTestId('trace-runs')).toHaveTextContent('33 (depth 32)')
    expect(rows()).toHaveLength(33 * 3 - 2)
    const edge = row('run:run-32')
    expect(edge.dataset.level).toBe('64')
    // Past a point rows stop moving right, so the deepest names still have room.
    const indent = (key: string) => (within(row(key)).getByTestId('trace-node-name').closest('[style]') as HTMLElement).style.paddingLeft
    expect([indent('run:run-6'), indent('run:run-12'), indent('run:run-32')]).toEqual(['168px', '336px', '336px'])
    const more = within(edge).getByTestId('trace-node-hidden')
    expect(more).toHaveTextContent('5,903 more below, not in this answer: open this run’s trace')
    expect(screen.getAllByTestId('trace-node-hidden')).toHaveLength(1)
    await userEvent.click(within(more).getByRole('link', { name: 'open this run’s trace' }))
    expect(screen.getByTestId('where')).toHaveTextContent('/traces/run-32')
  })

  it('says so for a run that has no trace', async () => {
    renderPage('/traces/gone')
    expect(await screen.findByRole('alert')).toHaveTextContent('No trace for run gone.')
    expect(screen.getByRole('link', { name: /All traces/ })).toHaveAttribute('href', '/traces')
  })
})
