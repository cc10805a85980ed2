// The Tasks page against a fake server that answers like the real one: standing agents kept in
// memory (422 with field errors on create, 204 on delete), schedule previews, and a run that a
// worker moves from queued to running to succeeded between two reads.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { StandingAgent, TaskDetail, TaskSummary } from './api'
import TasksPage from './TasksPage'

const AGENT = 'synapse_agents.demo.agents.support-agent'
const STAMP = '2026-05-11T07:00:00.000Z'

function summary(over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id: 't0', standing_agent_id: 's1', agent: AGENT, trigger: 'schedule', event: null, fires: 1, slot_at: STAMP, tenant: null, subject: null,
    status: 'succeeded', cancel_requested: false, worker: 'host:1', queued_at: STAMP, not_before: STAMP, started_at: STAMP, heartbeat_at: STAMP,
    finished_at: '2026-05-11T07:00:02.000Z', duration_ms: 2000, input_tokens: 120, output_tokens: 30, cost: null, error: null, conversation_id: 'c0',
    ...over,
  }
}

function standing(over: Partial<StandingAgent> = {}): StandingAgent {
  return {
    id: 's1', name: 'Morning digest', agent: AGENT, instruction: 'Summarise the night.', tenant: null, subject: null, cron: '0 9 * * 1-5',
    timezone: 'Europe/Madrid', schedule_words: 'At 09:00, Monday through Friday (Europe/Madrid)', events: ['order.created'], debounce_seconds: 30,
    enabled: true, next_fire_at: new Date(Date.now() + 3 * 3600_000).toISOString(), last_fired_at: STAMP, created_at: STAMP, updated_at: STAMP,
    last_runs: [summary()], ...over,
  }
}

let agents: StandingAgent[]
let run: TaskDetail | null
/** What the server says beside a run it queued (the broker did not answer), or nothing. */
let runNotice: string | null
let reads: number
let calls: { method: string; path: string; body?: Record<string, unknown> }[]

const invalid = (location: string, message: string) =>
  Response.json({ error: { code: 'invalid_request', message, fields: [{ location, message }] } }, { status: 422 })

/** Each read of the run moves it on, as its worker would: queued → running (a log step) → succeeded. */
function advance(): TaskDetail {
  const current = run!
  reads += 1
  if (reads === 2) Object.assign(current, { status: 'running', started_at: new Date().toISOString(), logs: [{ seq: 1, kind: 'started', message: 'Started on host:1.', data: null, created_at: STAMP }] })
  if (reads === 3)
    Object.assign(current, {
      status: 'succeeded', finished_at: new Date().toISOString(), duration_ms: 1830, input_tokens: 1200, output_tokens: 80, cost: '0.0042', conversation_id: 'c9', output: 'All quiet overnight.',
      logs: [
        ...current.logs,
        { seq: 2, kind: 'model_response', message: "demo answered 'All quiet'", data: { model: 'demo', tokens: { input: 1200 } }, created_at: STAMP },
        { seq: 3, kind: 'finished', message: 'Succeeded in 1.83 s.', data: null, created_at: STAMP },
      ],
    })
  return current
}

beforeEach(() => {
  resetResources()
  agents = [standing()]
  run = null
  runNotice = null
  reads = 0
  calls = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = '', qs = ''] = url.split('?')
      const query = new URLSearchParams(qs)
      const body = init?.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : undefined
      calls.push({ method, path, body })
      if (path === '/api/agents') return Response.json({ agents: [{ slug: AGENT, name: 'support_agent' }], problems: [], targets: [], project_root: '/' })
      if (path === '/api/schedules/preview') {
        const cron = query.get('cron') ?? ''
        if (cron.startsWith('61')) return invalid('query.cron', `cron: '${cron}' is not a valid cron expression (minute 61 is out of range).`)
        return Response.json({ cron, timezone: query.get('timezone'), words: `Words for ${cron}`, next: ['2026-05-12T07:00:00Z', '2026-05-13T07:00:00Z', '2026-05-14T07:00:00Z'] })
      }
      if (path === '/api/standing-agents' && method === 'GET') return Response.json({ standing_agents: agents })
      if (path === '/api/standing-agents' && method === 'POST') {
        if (String(body?.cron).startsWith('61')) return invalid('body.cron', 'cron: minute 61 is out of range.')
        const made = standing({ ...(body as Partial<StandingAgent>), id: 's2', schedule_words: `Words for ${String(body?.cron)}`, last_runs: [] })
        agents = [made, ...agents]
        return Response.json(made, { status: 201 })
      }
      if (path === '/api/tasks') return Response.json({ tasks: run ? [run] : [summary()], next_before: null })
      if (path === '/api/standing-agents/s1/run' && method === 'POST') {
        run = { ...summary({ id: 't1', trigger: 'manual', status: 'queued', started_at: null, finished_at: null, duration_ms: null, conversation_id: null, worker: null }), instruction: 'Summarise the night.', context: null, output: null, run_id: null, logs: [] }
        agents = agents.map((one) => (one.id === 's1' ? { ...one, last_runs: [run!, ...one.last_runs] } : one))
        return Response.json({ task: run, notice: runNotice }, { status: 202 })
      }
      if (path === '/api/tasks/t1') return Response.json(advance())
      if (path === '/api/standing-agents/s1/pause') {
        agents = agents.map((one) => (one.id === 's1' ? { ...one, enabled: false, next_fire_at: null } : one))
        return Response.json(agents.find((one) => one.id === 's1'))
      }
      if (path === '/api/standing-agents/s1' && method === 'DELETE') {
        agents = agents.filter((one) => one.id !== 's1')
        return new Response(null, { status: 204 })
      }
      return Response.json({ error: { code: 'not_found', message: url } }, { status: 404 })
    }),
  )
})
afterEach(() => vi.unstubAllGlobals())

function Where() {
  const location = useLocation()
  return <output data-testid="where">{location.pathname + location.search}</output>
}

const renderAt = (path: string) =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/tasks" element={<TasksPage />} />
        <Route path="*" element={null} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )

describe('Tasks', () => {
  it('shows each standing agent: its schedule in words, events with debounce, next run, last runs', async () => {
    renderAt('/tasks')
    const card = await screen.findByTestId('standing-card')
    expect(within(card).getByTestId('standing-state')).toHaveTextContent('Enabled')
    expect(within(card).getAllByTestId('standing-trigger').map((line) => line.textContent)).toEqual([
      'At 09:00, Monday through Friday (Europe/Madrid)',
      'On order.created (debounce 30 s)',
    ])
    expect(within(card).getByTestId('standing-next')).toHaveTextContent(/Next run in 3 h · .*\(Europe\/Madrid\)/)
    const last = within(card).getByTestId('run-row')
    expect(within(last).getByTestId('task-status')).toHaveTextContent('Succeeded')
    expect(within(last).getByTestId('run-cost')).toHaveTextContent('unpriced')
    expect(within(last).getByTestId('run-duration')).toHaveTextContent('2.00 s')

    await userEvent.click(within(card).getByRole('button', { name: /Pause/ }))
    await waitFor(() => expect(within(card).getByTestId('standing-state')).toHaveTextContent('Paused'))
    expect(within(card).getByTestId('standing-next')).toHaveTextContent('Paused: no run until resumed')
    expect(within(card).getByRole('button', { name: /Resume/ })).toBeInTheDocument()

    await userEvent.click(within(card).getByRole('button', { name: 'Delete Morning digest' }))
    const confirm = screen.getByRole('alertdialog', { name: 'Delete Morning digest?' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }))
    await screen.findByText('No standing agents')
    expect(calls.some((call) => call.method === 'DELETE' && call.path === '/api/standing-agents/s1')).toBe(true)
  })

  it("previews the schedule as it is typed and puts the server's 422 beside its field", async () => {
    renderAt('/tasks')
    await screen.findByTestId('standing-card')
    await userEvent.click(screen.getAllByRole('button', { name: /New standing agent/ })[0]!)
    const form = screen.getByRole('form', { name: 'New standing agent' })
    await userEvent.type(within(form).getByLabelText('Name'), 'Hourly check')
    await waitFor(() => expect(within(form).getByRole('option', { name: new RegExp(AGENT.replaceAll('.', '\\.')) })).toBeInTheDocument())
    await userEvent.selectOptions(within(form).getByLabelText('Agent'), AGENT)
    await userEvent.type(within(form).getByLabelText('Instruction'), 'Check the queue.')
    const zone = within(form).getByLabelText('Time zone')
    await userEvent.clear(zone)
    await userEvent.type(zone, 'UTC')
    await userEvent.type(within(form).getByLabelText('Cron'), '61 * * * *')
    await waitFor(() => expect(within(form).getByTestId('schedule-error')).toHaveTextContent('minute 61 is out of range'))

    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(within(form).getByLabelText('Cron')).toHaveAccessibleDescription('cron: minute 61 is out of range.'))
    expect(within(form).getByLabelText('Cron')).toHaveAttribute('aria-invalid', 'true')

    await userEvent.clear(within(form).getByLabelText('Cron'))
    await userEvent.type(within(form).getByLabelText('Cron'), '0 * * * *')
    expect(within(form).getByLabelText('Cron')).not.toHaveAttribute('aria-invalid')
    await waitFor(() => expect(within(form).getByTestId('schedule-words')).toHaveTextContent('Words for 0 * * * *'))
    expect(within(within(form).getByTestId('schedule-preview')).getAllByRole('listitem')).toHaveLength(3)
    await userEvent.type(within(form).getByLabelText('Events'), 'order.created, , order.paid')
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New standing agent' })).not.toBeInTheDocument())
    const created = calls.filter((call) => call.method === 'POST' && call.path === '/api/standing-agents').at(-1)!
    expect(created.body).toEqual({
      name: 'Hourly check', agent: AGENT, instruction: 'Check the queue.', cron: '0 * * * *', timezone: 'UTC', events: ['order.created', 'order.paid'], debounce_seconds: 0, enabled: true,
    })
    expect(await screen.findAllByTestId('standing-card')).toHaveLength(2)
  })

  it("shows the server's notice when a run now is queued while the broker does not answer", async () => {
    runNotice =
      'The broker at amqp://broker:5672// did not answer (OperationalError: [Errno 111] Connection refused). The task is queued and will be published when the broker answers (the scheduler publishes queued tasks again every minute): sending it again would run it twice.'
    renderAt('/tasks')
    const card = await screen.findByTestId('standing-card')
    await userEvent.click(within(card).getByRole('button', { name: /Run now/ }))
    const notice = await within(card).findByTestId('run-notice')
    expect(notice).toHaveAttribute('role', 'status')
    expect(notice).toHaveTextContent(runNotice)
    expect(within(card).queryByRole('alert')).not.toBeInTheDocument()
    await within(card).findByRole('link', { name: /Run t1 .* queued/ })

    // The next action replaces it.
    await userEvent.click(within(card).getByRole('button', { name: /Pause/ }))
    await waitFor(() => expect(within(card).queryByTestId('run-notice')).not.toBeInTheDocument())
  })

  it('runs one now and follows the run live to its end: status, log, cost, conversation', async () => {
    renderAt('/tasks')
    const card = await screen.findByTestId('standing-card')
    await userEvent.click(within(card).getByRole('button', { name: /Run now/ }))
    const queued = await within(card).findByRole('link', { name: /Run t1 .* queued/ })
    expect(within(card).queryByTestId('run-notice')).not.toBeInTheDocument()
    await userEvent.click(queued)
    expect(screen.getByTestId('where')).toHaveTextContent('/tasks?task=t1')

    const detail = await screen.findByTestId('task-detail')
    expect(detail).toHaveAttribute('data-status', 'queued')
    expect(within(detail).getByRole('button', { name: /Cancel/ })).toBeInTheDocument()
    expect(within(detail).getByTestId('task-trigger')).toHaveTextContent('Run now')
    await waitFor(() => expect(screen.getByTestId('task-detail')).toHaveAttribute('data-status', 'running'), { timeout: 3000 })
    await waitFor(() => expect(screen.getByTestId('task-detail')).toHaveAttribute('data-status', 'succeeded'), { timeout: 3000 })

    const done = screen.getByTestId('task-detail')
    expect(within(done).queryByRole('button', { name: /Cancel/ })).not.toBeInTheDocument()
    expect(within(done).getByTestId('task-cost')).toHaveTextContent('$0.0042')
    expect(within(done).getByTestId('task-tokens')).toHaveTextContent('1,200 in · 80 out')
    expect(within(done).getByTestId('task-output')).toHaveTextContent('All quiet overnight.')
    expect(within(done).getAllByTestId('log-step').map((step) => step.getAttribute('data-kind'))).toEqual(['started', 'model_response', 'finished'])
    const model = within(done).getAllByTestId('log-step')[1]!
    await userEvent.click(within(model).getByRole('button', { name: 'Data' }))
    expect(within(model).getByTestId('json-view')).toHaveTextContent('tokens')
    expect(within(done).getByTestId('task-conversation')).toHaveAttribute('href', `/agents/${AGENT}/c/c9`)

    // Final: no more reads of it.
    const seen = reads
    await new Promise((resolve) => setTimeout(resolve, 1300))
    expect(reads).toBe(seen)
    await userEvent.click(screen.getByRole('link', { name: /All tasks/ }))
    expect(screen.getByTestId('where')).toHaveTextContent(/^\/tasks$/)
  })
})
