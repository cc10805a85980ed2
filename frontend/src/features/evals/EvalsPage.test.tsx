// The Evals pages against a fake server that answers like the real one: a dataset with its cases and
// versions, runs started side by side (each ending at once here), a run's cases failing first, and
// two runs compared; then "Save as test case" on a stored answer.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { CaseResult, Dataset, Run } from './api'
import EvalsPage from './EvalsPage'
import SaveCaseDialog from './SaveCaseDialog'

const STAMP = '2026-05-01T00:00:00.000Z'
const AGENT = 'demo.support-agent'

let datasets: Dataset[]
let runs: Run[]
let results: Record<string, CaseResult[]>
let calls: { method: string; path: string; body?: Record<string, unknown> }[]

const dataset = (over: Partial<Dataset> & Pick<Dataset, 'key'>): Dataset => ({
  version: 1,
  latest_version: 1,
  name: over.key,
  description: null,
  tags: [],
  cases: [],
  evaluators: [],
  change: 'created',
  created_at: STAMP,
  ...over,
})

const result = (over: Partial<CaseResult> & Pick<CaseResult, 'case' | 'position'>): CaseResult => ({
  passed: true,
  conversation_id: `conv-${over.case}`,
  output: `answer to ${over.case}`,
  assertions: {},
  scores: {},
  labels: {},
  error: null,
  cost: '0.001',
  input_tokens: 10,
  output_tokens: 5,
  duration_ms: 100,
  ...over,
})

function run(id: string, model: string | null, passing: string[]): Run {
  const cases = ['order', 'refund'].map((name, position) =>
    result({
      case: name,
      position,
      passed: passing.includes(name),
      assertions: { Contains: passing.includes(name) ? { value: true, reason: null } : { value: false, reason: `'${name}' not found` } },
    }),
  )
  results[id] = cases
  const passed = cases.filter((c) => c.passed).length
  return {
    id,
    dataset: 'support',
    dataset_version: 1,
    agent: AGENT,
    model,
    preset: null,
    label: model ?? "agent's own model",
    status: 'succeeded',
    concurrency: 4,
    task_id: `task-${id}`,
    case_count: 2,
    passed,
    failed: 2 - passed,
    errored: 0,
    pass_rate: passed / 2,
    scores: {},
    cost: '0.002',
    input_tokens: 20,
    output_tokens: 10,
    duration_ms: 200,
    error: null,
    created_at: STAMP,
    started_at: STAMP,
    finished_at: STAMP,
  }
}

const notFound = (what: string) => Response.json({ error: { code: 'not_found', message: `No ${what}.` } }, { status: 404 })

beforeEach(() => {
  resetResources()
  calls = []
  results = {}
  runs = []
  datasets = [
    dataset({
      key: 'support',
      name: 'Support',
      cases: [
        { name: 'order', inputs: { message: 'Where is order A-1001?' }, evaluators: [{ Contains: 'A-1001' }], metadata: { source: { agent_key: AGENT, conversation_id: 'c1' } } },
        { name: 'refund', inputs: { message: 'Can I get a refund?' }, expected_output: 'Yes', evaluators: ['EqualsExpected'] },
      ],
    }),
  ]
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET'
      const [path = '', qs = ''] = url.split('?')
      const query = new URLSearchParams(qs)
      const body = init?.body ? (JSON.parse(init.body as string) as Record<string, unknown>) : undefined
      calls.push({ method, path, body })
      if (path === '/api/evals/evaluators')
        return Response.json({
          evaluators: [
            { name: 'EqualsExpected', source: 'pydantic-evals', description: 'Equal to the expected output.', arguments: [], module: null, problem: null },
            { name: 'Contains', source: 'pydantic-evals', description: 'Contains a value.', arguments: [{ name: 'value', type: 'Any', required: true, default: null }], module: null, problem: null },
            { name: 'Python', source: 'pydantic-evals', description: '', arguments: [], module: null, problem: 'runs code' },
          ],
        })
      if (path === '/api/registry/presets') return Response.json({ presets: [{ key: 'careful', name: 'Careful', model: 'demo', temperature: 0.1 }] })
      if (path === '/api/agents') return Response.json({ agents: [{ slug: AGENT, name: 'support_agent', module: 'demo', attribute: 'a', model: null, stateless: false }], problems: [], targets: [] })
      if (path === `/api/agents/${AGENT}/models`)
        return Response.json({ default: 'demo', models: [{ id: 'demo', label: 'Demo model', provider: 'demo', source: 'demo', available: true, missing_env: null }] })
      if (path === '/api/evals/datasets' && method === 'GET')
        return Response.json({ datasets: datasets.map((d) => ({ key: d.key, name: d.name, description: null, tags: d.tags, version: d.version, case_count: d.cases.length, created_at: STAMP, updated_at: STAMP })) })
      if (path === '/api/evals/datasets' && method === 'POST') {
        if (!/^[a-z0-9][a-z0-9_-]*$/.test(String(body?.key)))
          return Response.json({ error: { code: 'invalid_request', message: 'key: lowercase', fields: [{ location: 'body.key', message: 'lowercase' }] } }, { status: 422 })
        const created = dataset({ key: String(body?.key), name: String(body?.name) })
        datasets.push(created)
        return Response.json(created, { status: 201 })
      }
      const fromMessage = /^\/api\/evals\/datasets\/([\w-]+)\/cases\/from-message$/.exec(path)
      if (fromMessage) {
        const found = datasets.find((d) => d.key === fromMessage[1])
        if (!found) return notFound('dataset')
        found.cases = [...found.cases, { name: 'Where is order A-1001?', inputs: { message: 'Where is order A-1001?' }, evaluators: body?.evaluators }]
        found.version += 1
        return Response.json(found)
      }
      const versions = /^\/api\/evals\/datasets\/([\w-]+)\/versions$/.exec(path)
      if (versions) return Response.json({ versions: [{ version: 1, name: 'Support', case_count: 2, change: 'created', created_at: STAMP }] })
      const one = /^\/api\/evals\/datasets\/([\w-]+)$/.exec(path)
      if (one) return datasets.find((d) => d.key === one[1]) ? Response.json(datasets.find((d) => d.key === one[1])) : notFound('dataset')
      if (path === '/api/evals/runs/side-by-side') {
        const models = [...(body?.models as (string | null)[]), ...(body?.presets as string[]).map((preset) => `preset ${preset}`)]
        const started = models.map((model, index) => run(`0000000${runs.length + index + 1}`, model, model === null ? ['order', 'refund'] : ['refund']))
        runs = [...started.slice().reverse(), ...runs]
        return Response.json({ runs: started }, { status: 202 })
      }
      if (path === '/api/evals/runs') return Response.json({ runs: runs.filter((r) => !query.get('dataset') || r.dataset === query.get('dataset')) })
      if (path === '/api/evals/runs/compare') {
        const [before, after] = [runs.find((r) => r.id === query.get('before'))!, runs.find((r) => r.id === query.get('after'))!]
        const cases = ['order', 'refund'].map((name) => {
          const [old, now] = [results[before.id]!.find((c) => c.case === name)!, results[after.id]!.find((c) => c.case === name)!]
          const change = old.passed && !now.passed ? 'regressed' : old.passed ? 'still passing' : now.passed ? 'fixed' : 'still failing'
          return { case: name, change, before: old, after: now, cost_delta: '0', duration_delta_ms: 0 }
        })
        return Response.json({ before, after, cases: cases.sort((a) => (a.change === 'regressed' ? -1 : 1)) })
      }
      const oneRun = /^\/api\/evals\/runs\/(\w+)$/.exec(path)
      const found = runs.find((r) => r.id === oneRun?.[1])
      if (found) return Response.json({ ...found, cases: [...results[found.id]!].sort((a, b) => Number(a.passed) - Number(b.passed) || a.position - b.position) })
      return notFound(url)
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
        <Route path="/evals/*" element={<EvalsPage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )

describe('Evals', () => {
  it('lists the datasets and opens one with its cases', async () => {
    renderAt('/evals')
    await userEvent.click(await screen.findByRole('link', { name: 'Support' }))
    const cases = await screen.findAllByTestId('eval-case-row')
    expect(cases.map((row) => within(row).getAllByRole('cell')[0]!.textContent)).toEqual(['order', 'refund'])
    expect(within(cases[0]!).getByRole('link', { name: 'saved turn' })).toHaveAttribute('href', `/agents/${AGENT}/c/c1`)
    expect(within(cases[1]!).getByText('EqualsExpected')).toBeInTheDocument()
    expect(screen.getByText('Not run yet.')).toBeInTheDocument()
  })

  it('runs the dataset on two models side by side, then compares the runs case by case', async () => {
    renderAt('/evals/datasets/support')
    await userEvent.click(await screen.findByRole('button', { name: /Run/ }))
    const form = await screen.findByRole('form', { name: 'Run the dataset' })
    // The agent the cases were saved from is chosen first; its own model is ticked.
    await waitFor(() => expect(within(form).getByLabelText('Agent')).toHaveValue(AGENT))
    await userEvent.click(await within(form).findByLabelText('Demo model (demo)'))
    await userEvent.click(within(form).getByRole('button', { name: 'Run side by side' }))
    expect(calls.find((call) => call.path === '/api/evals/runs/side-by-side')?.body).toEqual({
      dataset: 'support',
      agent: AGENT,
      models: [null, 'demo'],
      presets: [],
      label: null,
      concurrency: 4,
    })
    const rows = await screen.findAllByTestId('eval-run-row')
    expect(rows).toHaveLength(2)
    const compare = screen.getByRole('button', { name: /Compare/ })
    expect(compare).toBeDisabled()
    for (const row of rows) await userEvent.click(within(row).getByRole('checkbox'))
    await userEvent.click(compare)
    expect(screen.getByTestId('where')).toHaveTextContent('/evals/compare?before=00000001&after=00000002')
    const compared = await screen.findAllByTestId('compare-case')
    expect(compared.map((row) => row.dataset.change)).toEqual(['regressed', 'still passing'])
    expect(within(compared[0]!).getByText('passed before, fails now')).toBeInTheDocument()
    expect(screen.getByTestId('compare-before')).toHaveTextContent("agent's own model")
    expect(screen.getByTestId('compare-after')).toHaveTextContent('demo')
  })

  it('runs the dataset with a registry preset instead of a model', async () => {
    renderAt('/evals/datasets/support')
    await userEvent.click(await screen.findByRole('button', { name: /Run/ }))
    const form = await screen.findByRole('form', { name: 'Run the dataset' })
    await userEvent.click(await within(form).findByLabelText("The agent's own model"))
    await userEvent.click(await within(form).findByLabelText(/^Careful/))
    await userEvent.click(within(form).getByRole('button', { name: 'Run' }))
    expect(calls.find((call) => call.path === '/api/evals/runs/side-by-side')?.body).toMatchObject({ models: [], presets: ['careful'] })
  })

  it("shows a run's cases failing first, with the reasons and their conversations", async () => {
    runs = [run('00000009', 'demo', ['refund'])]
    renderAt('/evals/runs/00000009')
    const cards = await screen.findAllByTestId('eval-case-result')
    expect(cards.map((card) => within(card).getByTestId('case-verdict').textContent)).toEqual(['fail', 'pass'])
    expect(within(cards[0]!).getByText("Contains: 'order' not found")).toBeInTheDocument()
    expect(within(cards[0]!).getByRole('link', { name: 'Conversation and trace' })).toHaveAttribute('href', `/agents/${AGENT}/c/conv-order`)
    expect(screen.getByTestId('total-passed')).toHaveTextContent('50% (1/2)')
  })
})

describe('Save as test case', () => {
  const renderDialog = () =>
    render(
      <MemoryRouter>
        <SaveCaseDialog messageId="m-answer" open onClose={() => undefined} />
      </MemoryRouter>,
    )

  it('refuses evaluators that are not a JSON list, and sends nothing', async () => {
    renderDialog()
    const evaluators = await screen.findByLabelText('Evaluators')
    await userEvent.clear(evaluators)
    await userEvent.type(evaluators, 'Contains')
    await userEvent.click(screen.getByRole('button', { name: 'Save case' }))
    expect(screen.getByRole('alert')).toHaveTextContent('Write the evaluators as a JSON list')
    expect(calls.filter((call) => call.method === 'POST')).toEqual([])
  })

  it('adds a known evaluator to the list, with its arguments to fill when it needs them', async () => {
    renderDialog()
    const known = await screen.findByLabelText('Known evaluators')
    expect(within(known).queryByRole('button', { name: 'Python' })).toBeNull()
    await userEvent.click(within(known).getByRole('button', { name: 'Contains' }))
    expect(screen.getByRole('textbox', { name: 'Evaluators' })).toHaveValue('["EqualsExpected",{"Contains":{}}]')
  })

  it('saves the turn into a new dataset with the answer as the expected output', async () => {
    datasets = []
    renderDialog()
    await userEvent.type(await screen.findByLabelText('New dataset key'), 'regressions')
    await userEvent.click(screen.getByLabelText('Send the conversation before the question too'))
    await userEvent.click(screen.getByRole('button', { name: 'Save case' }))
    expect(await screen.findByRole('status')).toHaveTextContent('is case 1 of regressions (version 2)')
    const posts = calls.filter((call) => call.method === 'POST')
    expect(posts.map((call) => call.path)).toEqual(['/api/evals/datasets', '/api/evals/datasets/regressions/cases/from-message'])
    expect(posts[1]!.body).toEqual({ message_id: 'm-answer', name: null, expected: 'output', include_history: true, evaluators: ['EqualsExpected'] })
  })
})
