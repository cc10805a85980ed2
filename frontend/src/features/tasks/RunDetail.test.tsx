// One run in full against a fake server: its output rendered as Markdown (untrusted markup kept
// inert, the raw text one click away), its agent and actor by name with the raw ids in tooltips.
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { StandingAgent, TaskDetail } from './api'
import TasksPage from './TasksPage'

const AGENT = 'myshop.agents.support.ticket_summariser'
const STAMP = '2026-05-11T07:00:00.000Z'
const OUTPUT = [
  '## Overnight',
  '',
  'Three tickets are **urgent**; see [the queue](https://example.com/queue).',
  '',
  '- refund for A-1001',
  '- a [bad link](javascript:window.__xss=1)',
  '',
  '<img src=x onerror="window.__xss=2"> ![pixel](https://tracker.example/p.gif)',
].join('\n')

function run(over: Partial<TaskDetail> = {}): TaskDetail {
  return {
    id: 't1', standing_agent_id: 's1', agent: AGENT, trigger: 'schedule', event: null, fires: 1, slot_at: STAMP, tenant: null, subject: null,
    status: 'succeeded', cancel_requested: false, worker: 'host:1', queued_at: STAMP, not_before: STAMP, started_at: STAMP, heartbeat_at: STAMP,
    finished_at: STAMP, duration_ms: 2000, input_tokens: 120, output_tokens: 30, cost: null, error: null, conversation_id: null,
    instruction: 'Summarise the night.', context: null, output: OUTPUT, run_id: null, logs: [], ...over,
  }
}

function standing(id: string, name: string): StandingAgent {
  return {
    id, name, agent: AGENT, instruction: 'Summarise the night.', tenant: null, subject: null, cron: null, timezone: 'UTC', schedule_words: null,
    events: [], debounce_seconds: 0, enabled: true, next_fire_at: null, last_fired_at: null, created_at: STAMP, updated_at: STAMP, last_runs: [],
  }
}

let task: TaskDetail

beforeEach(() => {
  resetResources()
  task = run()
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const path = url.split('?')[0]
      if (path === '/api/agents') return Response.json({ agents: [{ slug: AGENT, name: 'ticket_summariser', label: 'Ticket summariser' }], problems: [], targets: [], project_root: '/' })
      if (path === '/api/standing-agents') return Response.json({ standing_agents: [standing('s1', 'Morning digest')] })
      if (path === `/api/tasks/${task.id}`) return Response.json(task)
      if (path === '/api/tasks') return Response.json({ tasks: [task], next_before: null })
      return Response.json({ error: { code: 'not_found', message: 'No such thing.' } }, { status: 404 })
    }),
  )
})

afterEach(() => vi.unstubAllGlobals())

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/tasks" element={<TasksPage />} />
      </Routes>
    </MemoryRouter>,
  )

describe('a run in full', () => {
  it('renders its output as Markdown, keeps untrusted markup inert, and shows the raw text on demand', async () => {
    renderAt('/tasks?task=t1')
    const output = await screen.findByTestId('task-output')
    expect(output).toHaveAttribute('data-view', 'rendered')
    expect(within(output).getByRole('heading', { name: 'Overnight' })).toBeInTheDocument()
    expect(within(output).getByText('urgent').tagName).toBe('STRONG')
    expect(within(output).getAllByRole('listitem')).toHaveLength(2)
    expect(within(output).getByRole('link', { name: 'the queue' })).toHaveAttribute('href', 'https://example.com/queue')
    expect(within(output).getByText('bad link').closest('a')?.getAttribute('href') ?? '').not.toMatch(/javascript/i)
    expect(output.querySelector('img')).toBeNull() // raw HTML dropped, a Markdown image shown as a link
    expect(within(output).getByRole('link', { name: 'pixel' })).toHaveAttribute('href', 'https://tracker.example/p.gif')
    expect(output.innerHTML).not.toContain('onerror')
    expect(output).not.toHaveTextContent('**urgent**')

    await userEvent.click(screen.getByRole('radio', { name: 'Raw' }))
    expect(output).toHaveAttribute('data-view', 'raw')
    expect(output).toHaveTextContent('## Overnight')
    expect(output).toHaveTextContent('Three tickets are **urgent**')
    expect(output).toHaveTextContent('<img src=x onerror="window.__xss=2">')
    expect(output.querySelector('img, h2, strong')).toBeNull()

    await userEvent.click(screen.getByRole('radio', { name: 'Rendered' }))
    expect(within(output).getByText('urgent').tagName).toBe('STRONG')
  })

  it('shows structured output in the JSON viewer', async () => {
    task = run({ output: { urgent: 3, tickets: ['A-1001'] } })
    renderAt('/tasks?task=t1')
    const detail = await screen.findByTestId('task-detail')
    await waitFor(() => expect(within(detail).getByTestId('json-view')).toHaveTextContent('A-1001'))
    expect(screen.queryByTestId('task-output')).toBeNull()
  })

  it('names its agent and its actor as the rest of the dashboard does, the raw ids in tooltips', async () => {
    renderAt('/tasks?task=t1')
    const detail = await screen.findByTestId('task-detail')
    const agent = within(detail).getByTestId('agent-name')
    await waitFor(() => expect(agent).toHaveTextContent('Ticket summariser'))
    expect(agent).not.toHaveTextContent(AGENT)
    const actor = within(detail).getByTestId('task-actor')
    await waitFor(() => expect(actor).toHaveTextContent('Morning digest'))
    expect(actor).not.toHaveTextContent('s1')

    // The tooltip is a popover in the top layer (hidden to the accessibility tree of this DOM).
    act(() => agent.focus())
    expect(await screen.findByRole('tooltip', { hidden: true })).toHaveTextContent(AGENT)
    act(() => actor.focus())
    await waitFor(() => expect(screen.getByRole('tooltip', { hidden: true })).toHaveTextContent('standing_agent:s1'))
  })

  it('says when a run was queued without a standing agent', async () => {
    task = run({ standing_agent_id: null })
    renderAt('/tasks?task=t1')
    const actor = await screen.findByTestId('task-actor')
    expect(actor).toHaveTextContent('Queued directly')
    expect(actor).toHaveAttribute('data-actor', 'task:manual')
  })

  it('says when the standing agent that fired a run was deleted since', async () => {
    task = run({ standing_agent_id: 's-gone' })
    renderAt('/tasks?task=t1')
    const actor = await screen.findByTestId('task-actor')
    await waitFor(() => expect(actor).toHaveTextContent('A deleted standing agent'))
    expect(actor).toHaveAttribute('data-actor', 'standing_agent:s-gone')
  })

  it('names the agent in the list of runs and on a standing agent card', async () => {
    renderAt('/tasks')
    const runs = await screen.findByTestId('runs')
    await waitFor(() => expect(within(runs).getByTestId('agent-name')).toHaveTextContent('Ticket summariser'))
    expect(within(runs).getByTestId('agent-name')).toHaveAttribute('data-slug', AGENT)
    const card = await screen.findByTestId('standing-card')
    expect(within(card).getByTestId('standing-agent')).toHaveTextContent('Ticket summariser')
  })
})
