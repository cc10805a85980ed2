// A traced run's Output panel against a fake server: a text output rendered as Markdown (untrusted
// markup kept inert, the raw text one click away); JSON output still in the JSON viewer.
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes } from 'react-router'
import { resetResources } from '@/lib/resource'
import type { TraceNode } from './api'
import { delegation } from './sample'
import TracePage from './TracePage'

const OUTPUT = [
  '# Plan',
  '',
  '1. Check the **tides**',
  '2. Write it up with `notes.md`',
  '',
  '[details](javascript:window.__xss=1) <script>window.__xss=2</script> <img src=x onerror="window.__xss=3">',
].join('\n')

let tree: TraceNode

beforeEach(() => {
  resetResources()
  tree = delegation()
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const path = url.split('?')[0]!
      if (path === `/api/traces/${tree.id}`) return Response.json({ root: tree })
      return Response.json({ error: { code: 'not_found', message: 'No such thing.' } }, { status: 404 })
    }),
  )
})

afterEach(() => vi.unstubAllGlobals())

const renderPage = () =>
  render(
    <MemoryRouter initialEntries={['/traces/run-a']}>
      <Routes>
        <Route path="/traces/:runId" element={<TracePage />} />
      </Routes>
    </MemoryRouter>,
  )

describe("a traced run's output", () => {
  it('renders as Markdown, keeps untrusted markup inert, and shows the raw text on demand', async () => {
    tree.output = OUTPUT
    renderPage()
    const section = await screen.findByTestId('run-output')
    const output = within(section).getByTestId('run-output-text')
    expect(within(output).getByRole('heading', { name: 'Plan' })).toBeInTheDocument()
    expect(within(output).getByText('tides').tagName).toBe('STRONG')
    expect(within(output).getByText('notes.md').tagName).toBe('CODE')
    expect(within(output).getAllByRole('listitem')).toHaveLength(2)
    expect(within(output).getByText('details').closest('a')?.getAttribute('href') ?? '').not.toMatch(/javascript/i)
    expect(output.querySelector('script, img')).toBeNull()
    expect(output.innerHTML).not.toContain('onerror')

    await userEvent.click(within(section).getByRole('radio', { name: 'Raw' }))
    expect(output).toHaveAttribute('data-view', 'raw')
    expect(output).toHaveTextContent('# Plan')
    expect(output).toHaveTextContent('1. Check the **tides**')
    expect(output).toHaveTextContent('<script>window.__xss=2</script>')
    expect(output.querySelector('script, img, h1, strong')).toBeNull()
  })

  it('keeps JSON output, even sent as a string, in the JSON viewer', async () => {
    tree.output = '{"steps": ["check the tides"], "done": true}'
    renderPage()
    const section = await screen.findByTestId('run-output')
    expect(within(section).getByTestId('json-view')).toHaveTextContent('check the tides')
    expect(within(section).queryByTestId('run-output-text')).toBeNull()
    expect(within(section).queryByRole('radio', { name: 'Raw' })).toBeNull()
  })
})
