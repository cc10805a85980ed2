// The Workflows pages against a fake server that answers like the real one: a workflow with two
// versions, validation refusing a path that points at nothing (a 422 naming the step and the path),
// a save that writes the next version, and a run's step timeline.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { Workflow, WorkflowRunDetail } from './api'
import { barOf } from './RunPage'
import WorkflowsPage from './WorkflowsPage'

const STAMP = '2026-05-01T00:00:00.000Z'
const V1 = { version: 1, steps: [{ name: 'answer', agent_name: 'demo.support-agent', input_mapping: { message: '$.input.message' } }] }
const V2 = {
  version: 1,
  steps: [
    { name: 'answer', agent_name: 'demo.support-agent', input_mapping: { message: '$.input.message' } },
    { name: 'summary', agent_name: 'demo.summariser', input_mapping: { text: '$.steps.answer.output.answer' } },
  ],
  outputs: { final: '$.steps.summary.output.answer' },
}

let workflow: Workflow
let versions: { version: number; name: string; description: null; definition: unknown; change: string; created_at: string }[]
let calls: { method: string; path: string; body?: Record<string, unknown> }[]

const run: WorkflowRunDetail = {
  id: 'run-1',
  workflow: 'support',
  workflow_version: 2,
  workflow_deleted: false,
  is_sandbox: false,
  status: 'completed',
  current_step_index: 1,
  step_count: 2,
  input: { message: 'Where is A-1001?' },
  output: { final: 'It ships tomorrow.' },
  error: null,
  failed_step: null,
  task_id: 't1',
  total_tokens: 120,
  cost: null,
  duration_ms: 400,
  started_at: STAMP,
  completed_at: STAMP,
  steps: [
    { position: 0, name: 'answer', agent: 'demo.support-agent', status: 'completed', conversation_id: 'c1', agent_run_id: 'r1', message: 'Where is A-1001?', output: { answer: 'Shipped.' }, error: null, total_tokens: 80, cost: null, duration_ms: 100, started_at: STAMP, completed_at: STAMP },
    { position: 1, name: 'summary', agent: 'demo.summariser', status: 'completed', conversation_id: 'c2', agent_run_id: 'r2', message: '{"text": "Shipped."}', output: { answer: 'It ships tomorrow.' }, error: null, total_tokens: 40, cost: null, duration_ms: 300, started_at: '2026-05-01T00:00:00.100Z', completed_at: STAMP },
  ],
}

const invalid = (fields: { location: string; message: string }[]) =>
  Response.json({ error: { code: 'invalid_request', message: `${fields[0]!.location}: ${fields[0]!.message}`, fields } }, { status: 422 })

function check(definition: typeof V2): Response | null {
  for (const [index, step] of definition.steps.entries())
    for (const [field, path] of Object.entries(step.input_mapping))
      if (path.startsWith('$.steps.') && !definition.steps.slice(0, index).some((earlier) => path.startsWith(`$.steps.${earlier.name}.`)))
        return invalid([{ location: `body.definition.steps.${index}.input_mapping.${field}`, message: `'${path}' names no earlier step` }])
  return null
}

beforeEach(() => {
  resetResources()
  calls = []
  workflow = { key: 'support', version: 1, latest_version: 1, name: 'Support', description: null, definition: V1, is_sandbox: false, change: 'created', created_at: STAMP, updated_at: STAMP }
  versions = [{ version: 1, name: 'Support', description: null, definition: V1, change: 'created', created_at: STAMP }]
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = ''] = url.split('?')
      const body = init?.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : undefined
      calls.push({ method, path, body })
      if (path === '/api/workflows' && method === 'GET')
        return Response.json({ workflows: [{ key: 'support', name: 'Support', description: null, version: workflow.version, step_count: (workflow.definition as typeof V2).steps.length, is_sandbox: false, created_at: STAMP, updated_at: STAMP }] })
      if (path === '/api/workflows/validate') return check(body?.definition as typeof V2) ?? Response.json({ valid: true, step_count: 2 })
      if (path === '/api/workflows/support' && method === 'GET') return Response.json(workflow)
      if (path === '/api/workflows/support' && method === 'PATCH') {
        const refused = check(body?.definition as typeof V2)
        if (refused) return refused
        workflow = { ...workflow, version: workflow.version + 1, latest_version: workflow.version + 1, definition: body?.definition as typeof V2, change: 'definition changed' }
        versions = [{ version: workflow.version, name: 'Support', description: null, definition: workflow.definition, change: 'definition changed', created_at: STAMP }, ...versions]
        return Response.json(workflow)
      }
      if (path === '/api/workflows/support/versions') return Response.json({ versions })
      if (path === '/api/workflow-runs/run-1') return Response.json(run)
      if (path === '/api/workflow-runs') return Response.json({ runs: [run] })
      if (path === '/api/workflows/support/run') return Response.json(run, { status: 202 })
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
        <Route path="/workflows/*" element={<WorkflowsPage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )

describe('Workflows', () => {
  it('shows the problems of a definition inline, then saves the fixed one as the next version', async () => {
    renderAt('/workflows')
    await userEvent.click(await screen.findByRole('link', { name: 'Support' }))
    expect(await screen.findAllByTestId('workflow-step-box')).toHaveLength(1)
    const editor = screen.getByRole('textbox', { name: 'Definition' })
    const broken = { ...V2, steps: [V2.steps[1]!, V2.steps[0]!] }
    await userEvent.clear(editor)
    await userEvent.click(editor)
    await userEvent.paste(JSON.stringify(broken))
    expect(screen.getAllByTestId('workflow-step-box')).toHaveLength(2)
    await userEvent.click(screen.getByRole('button', { name: 'Check' }))
    const problem = await screen.findByTestId('definition-problem')
    expect(problem).toHaveTextContent("steps.0.input_mapping.text: '$.steps.answer.output.answer' names no earlier step")
    expect(calls.filter((call) => call.method === 'PATCH')).toEqual([])

    await userEvent.clear(editor)
    await userEvent.click(editor)
    await userEvent.paste(JSON.stringify(V2))
    await userEvent.click(screen.getByRole('button', { name: 'Save as version 2' }))
    expect(await screen.findByText('Saved as version 2.')).toBeInTheDocument()
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ version: 1, definition: V2 })
    const boxes = screen.getAllByTestId('workflow-step-box')
    expect(within(boxes[1]!).getByText('answer', { selector: '[title]' })).toBeInTheDocument()
  })

  it("shows what a version changed, line by line", async () => {
    workflow = { ...workflow, version: 2, latest_version: 2, definition: V2 }
    versions = [{ version: 2, name: 'Support', description: null, definition: V2, change: 'definition changed', created_at: STAMP }, ...versions]
    renderAt('/workflows/support?tab=versions')
    await userEvent.click(await screen.findByRole('button', { name: /v2/ }))
    const changes = screen.getByLabelText('Changes')
    const added = changes.querySelectorAll('[data-change="added"]')
    expect([...added].map((line) => line.textContent).join('\n')).toContain('"name": "summary"')
    expect(changes.querySelectorAll('[data-change="removed"]').length).toBeGreaterThan(0)
  })

  it("draws a run's steps on a timeline with their conversations and traces", async () => {
    renderAt('/workflows/runs/run-1')
    const steps = await screen.findAllByTestId('workflow-run-step')
    expect(steps).toHaveLength(2)
    expect(within(steps[1]!).getByRole('link', { name: 'Conversation' })).toHaveAttribute('href', '/agents/demo.summariser/c/c2')
    expect(within(steps[1]!).getByRole('link', { name: 'Trace' })).toHaveAttribute('href', '/traces/r2')
    expect(screen.getByTestId('workflow-output')).toHaveTextContent('It ships tomorrow.')
    await waitFor(() => expect(screen.getByTestId('workflow-run-status')).toHaveTextContent('completed'))
  })

  it('places each bar where its step started, as long as it took', () => {
    const start = Date.parse(STAMP)
    expect(barOf(run.steps[1]!, start, 400)).toEqual({ left: 0.25, width: 0.75 })
    expect(barOf({ started_at: STAMP, duration_ms: null }, start, 400)).toEqual({ left: 0, width: 0.01 })
  })
})
