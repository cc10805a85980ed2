// The Sources pages against a fake retrieval API (fakeRagServer.tsx): the list and a new source (a
// refusal shown with everything typed kept), an upload source's files, a run's live progress, the
// files that failed, the query tester, the chunks and deleting a source.
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import { App } from '@/app/App'
import { navAreas } from '@/features/shell/WorkspaceNav'
import { chunk, fakeRag, progressOf, renderSources, source, type FakeRag } from './fakeRagServer'
import { bodyOf, EMPTY_DRAFT } from './NewSourceDialog'

const handbook = () =>
  source({ slug: 'handbook', name: 'Handbook', status: 'done', document_count: 12, chunk_count: 340, total_files: 13, processed_files: 13, last_indexed_at: '2026-05-01T00:00:00.000Z' })

let rag: FakeRag
beforeEach(() => {
  rag = fakeRag([handbook(), source({ slug: 'policies', name: 'Policies', kind: 'urls', config: { urls: ['https://example.org/a'] }, status: 'failed', active: false })])
})
afterEach(() => vi.unstubAllGlobals())

describe('Sources list', () => {
  it("is the retrieval area: the server's `/sources` opens this page inside the dashboard", async () => {
    expect(navAreas([{ name: 'retrieval', path: '/sources', label: 'Sources' }])).toMatchObject([{ name: 'retrieval', label: 'Sources', to: '/sources' }])
    render(
      <MemoryRouter initialEntries={['/sources']}>
        <App />
      </MemoryRouter>,
    )
    expect(await screen.findAllByTestId('source-row', {}, { timeout: 5000 })).toHaveLength(2)
  })

  it('lists each source with its kind, status, counts and active switch', async () => {
    renderSources('/sources')
    const rows = await screen.findAllByTestId('source-row')
    expect(rows).toHaveLength(2)
    const first = within(rows[0]!)
    expect(first.getByRole('link', { name: 'Handbook' })).toHaveAttribute('href', '/sources/handbook')
    expect(first.getByText('folder')).toBeInTheDocument()
    expect(first.getByTestId('source-status')).toHaveTextContent('done')
    expect(first.getByText('12')).toBeInTheDocument()
    expect(first.getByText('340')).toBeInTheDocument()
    expect(first.getByRole('checkbox', { name: 'Active: Handbook' })).toBeChecked()
    expect(within(rows[1]!).getByTestId('source-status')).toHaveTextContent('failed')
    expect(within(rows[1]!).getByText('never')).toBeInTheDocument()
    expect(within(rows[1]!).getByRole('checkbox', { name: 'Active: Policies' })).not.toBeChecked()
  })

  it('switches a source off with a PATCH of `active`', async () => {
    renderSources('/sources')
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Active: Handbook' }))
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'Active: Handbook' })).not.toBeChecked())
    expect(rag.calls.find((call) => call.method === 'PATCH')).toMatchObject({ path: '/api/rag/sources/handbook', body: { active: false } })
  })

  it("shows the server's refusal under the form and keeps what was typed, then creates the source", async () => {
    renderSources('/sources')
    await userEvent.click(await screen.findByRole('button', { name: /New source/ }))
    const form = screen.getByRole('form', { name: 'New source' })
    await userEvent.type(within(form).getByLabelText('Slug'), 'handbook')
    await userEvent.type(within(form).getByLabelText('Name'), 'Staff handbook')
    await userEvent.type(within(form).getByLabelText('Folder'), '/srv/staff')
    await userEvent.type(within(form).getByLabelText('Include'), '**/*.md{enter}**/*.pdf')
    await userEvent.type(within(form).getByLabelText('Exclude'), 'drafts/**')
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))

    expect(await within(form).findByRole('alert')).toHaveTextContent("A source with slug 'handbook' exists already.")
    expect(within(form).getByLabelText('Slug')).toHaveValue('handbook')
    expect(within(form).getByLabelText('Name')).toHaveValue('Staff handbook')
    expect(within(form).getByLabelText('Folder')).toHaveValue('/srv/staff')
    expect(within(form).getByLabelText('Include')).toHaveValue('**/*.md\n**/*.pdf')

    await userEvent.clear(within(form).getByLabelText('Slug'))
    await userEvent.type(within(form).getByLabelText('Slug'), 'staff')
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/sources/staff'))
    const posts = rag.calls.filter((call) => call.method === 'POST' && call.path === '/api/rag/sources')
    expect(posts.map((call) => call.body)).toEqual([
      { slug: 'handbook', name: 'Staff handbook', kind: 'folder', path: '/srv/staff', include: ['**/*.md', '**/*.pdf'], exclude: ['drafts/**'] },
      { slug: 'staff', name: 'Staff handbook', kind: 'folder', path: '/srv/staff', include: ['**/*.md', '**/*.pdf'], exclude: ['drafts/**'] },
    ])
    expect(await screen.findByRole('heading', { name: 'Staff handbook' })).toBeInTheDocument()
  })

  it('sends a URL list as `urls` only, one a line, and a tenant when one is given', () => {
    expect(bodyOf({ ...EMPTY_DRAFT, slug: ' web ', kind: 'urls', path: '/ignored', tenant: ' org:acme ', urls: 'https://a.example/x\n\n https://b.example/y ' })).toEqual({
      slug: 'web',
      name: 'web',
      kind: 'urls',
      tenant: 'org:acme',
      urls: ['https://a.example/x', 'https://b.example/y'],
    })
  })

  it('creates an upload source, then uploads its files as multipart `files[]`', async () => {
    renderSources('/sources')
    await userEvent.click(await screen.findByRole('button', { name: /New source/ }))
    const form = screen.getByRole('form', { name: 'New source' })
    await userEvent.type(within(form).getByLabelText('Slug'), 'notes')
    await userEvent.click(within(form).getByRole('radio', { name: /Uploaded files/ }))
    expect(within(form).queryByLabelText('Folder')).not.toBeInTheDocument()
    await userEvent.click(within(form).getByRole('button', { name: 'Create' }))

    const picker = await screen.findByLabelText('Files to upload')
    await userEvent.upload(picker, [new File(['# Notes'], 'notes.md', { type: 'text/markdown' }), new File(['a,b'], 'table.csv', { type: 'text/csv' })])
    await userEvent.click(screen.getByRole('button', { name: 'Upload 2 files' }))
    expect(await screen.findByText(/2 files uploaded/)).toBeInTheDocument()
    const upload = rag.calls.find((call) => call.method === 'POST' && call.path === '/api/rag/sources/notes/files')
    expect(((upload?.body as FormData).getAll('files[]') as File[]).map((file) => file.name)).toEqual(['notes.md', 'table.csv'])
    await userEvent.click(screen.getByRole('button', { name: 'Done' }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/sources/notes'))
  })
})

describe('One source', () => {
  it('starts a run and follows its progress until it ends, then shows the files that failed', async () => {
    const before = handbook()
    rag.run = [
      { ...progressOf(before), status: 'indexing', processed_files: 1, total_files: 4, current_file: 'guide/intro.md' },
      { ...progressOf(before), status: 'indexing', processed_files: 3, total_files: 4, current_file: 'guide/scan.pdf' },
      { ...progressOf(before), status: 'done', processed_files: 4, total_files: 4, current_file: null, chunk_count: 352, last_indexed_at: '2026-05-02T00:00:00.000Z' },
    ]
    renderSources('/sources/handbook')
    expect(await screen.findByText('None: every file was indexed.')).toBeInTheDocument()
    rag.failed = [{ identifier: 'guide/scan.pdf', status: 'failed', error: 'guide/scan.pdf: the PDF has no text layer', chunk_count: 0, size: 2048, indexed_at: null }]
    await userEvent.click(screen.getByRole('button', { name: 'Index' }))
    expect(rag.calls.find((call) => call.path === '/api/rag/sources/handbook/index')?.body).toEqual({ reembed: false })

    const bar = await screen.findByRole('progressbar', { name: 'Indexing progress' })
    expect(bar).toHaveAttribute('aria-valuenow', '1')
    expect(bar).toHaveAttribute('aria-valuemax', '4')
    expect(screen.getByText('guide/intro.md')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Index' })).toBeDisabled()
    await waitFor(() => expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '3'), { timeout: 3000 })
    expect(screen.getByText('guide/scan.pdf')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('progressbar')).not.toBeInTheDocument(), { timeout: 3000 })

    const failed = await screen.findByTestId('failed-file')
    expect(failed).toHaveTextContent('guide/scan.pdf')
    expect(failed).toHaveTextContent('the PDF has no text layer')
    expect(screen.getByTestId('source-status')).toHaveTextContent('done')
    expect(screen.getByText('352')).toBeInTheDocument()
    const reads = rag.calls.filter((call) => call.path === '/api/rag/sources/handbook/progress').length
    await new Promise((resolve) => setTimeout(resolve, 1300))
    expect(rag.calls.filter((call) => call.path === '/api/rag/sources/handbook/progress')).toHaveLength(reads)
  })

  it('says a run is queued until a worker starts it, then follows it', async () => {
    const before = handbook()
    rag.askedStatus = 'pending'
    rag.run = [
      { ...progressOf(before), status: 'pending' },
      { ...progressOf(before), status: 'indexing', processed_files: 1, total_files: 2, current_file: 'a.md' },
      { ...progressOf(before), status: 'failed', last_error: 'The embedder is not reachable.' },
    ]
    renderSources('/sources/handbook')
    await userEvent.click(await screen.findByRole('button', { name: 'Index' }))
    expect(await screen.findByTestId('index-queued')).toHaveTextContent('Queued')
    expect(await screen.findByRole('progressbar', {}, { timeout: 3000 })).toHaveAttribute('aria-valuenow', '1')
    expect(await screen.findByTestId('source-last-error', {}, { timeout: 3000 })).toHaveTextContent('The embedder is not reachable.')
    expect(screen.queryByTestId('index-queued')).not.toBeInTheDocument()
    expect(screen.getByTestId('source-status')).toHaveTextContent('failed')
  })

  it('asks for a re-embedding and shows why a run cannot start', async () => {
    rag.sources[0] = { ...handbook(), status: 'indexing' }
    rag.steps = [{ ...progressOf(handbook()), status: 'indexing', processed_files: 2, total_files: 5, current_file: 'a.md' }]
    renderSources('/sources/handbook')
    expect(await screen.findByRole('progressbar')).toHaveAttribute('aria-valuenow', '2')
    expect(screen.getByRole('button', { name: 'Re-embed' })).toBeDisabled()
    rag.steps = [{ ...progressOf(handbook()), status: 'done' }]
    await waitFor(() => expect(screen.getByRole('button', { name: 'Re-embed' })).toBeEnabled(), { timeout: 3000 })
    rag.sources[0] = { ...rag.sources[0]!, status: 'indexing' }
    await userEvent.click(screen.getByRole('button', { name: 'Re-embed' }))
    expect(await screen.findByRole('alert')).toHaveTextContent("'handbook' is being indexed already.")
    expect(rag.calls.find((call) => call.path === '/api/rag/sources/handbook/index')?.body).toEqual({ reembed: true })
  })

  it('ranks chunks for a question in the query tester, with their scores and citations', async () => {
    rag.chunks = [
      chunk('c1', 'guide/leave.md', 0, 3, 'Annual leave is 25 days a year.'),
      chunk('c2', 'guide/leave.pdf', 1, 3, 'Sick leave needs a note after three days.', 4),
      chunk('c3', 'guide/other.md', 2, 3, 'The canteen opens at noon.'),
    ]
    renderSources('/sources/handbook')
    const tester = await screen.findByRole('region', { name: 'Query tester' })
    await userEvent.type(within(tester).getByLabelText('Question'), 'annual leave days')
    await userEvent.clear(within(tester).getByLabelText('Results'))
    await userEvent.type(within(tester).getByLabelText('Results'), '5')
    await userEvent.click(within(tester).getByRole('button', { name: 'Search' }))

    const hits = await within(tester).findAllByTestId('search-hit')
    expect(hits).toHaveLength(2)
    expect(within(hits[0]!).getByTestId('search-score')).toHaveTextContent('1.000')
    expect(within(hits[0]!).getByTestId('chunk-citation')).toHaveTextContent('Handbook · guide/leave.md · chunk 1/3')
    expect(within(hits[1]!).getByTestId('search-score')).toHaveTextContent('0.667')
    expect(within(hits[1]!).getByTestId('chunk-citation')).toHaveTextContent('Handbook · guide/leave.pdf · p. 4 · chunk 2/3')
    expect(within(tester).getByText(/2 ranked/)).toHaveTextContent('2 ranked · by similarity, embedder offline-hash-384')
    const search = rag.calls.find((call) => call.path === '/api/rag/search')!
    expect(Object.fromEntries(search.query)).toEqual({ source: 'handbook', q: 'annual leave days', k: '5' })
  })

  it('says when search ranked by the query words, with no embedder', async () => {
    rag.embedder = null
    rag.chunks = [chunk('c1', 'guide/leave.md', 0, 1, 'Annual leave is 25 days a year.')]
    renderSources('/sources/handbook')
    const tester = await screen.findByRole('region', { name: 'Query tester' })
    await userEvent.type(within(tester).getByLabelText('Question'), 'leave')
    await userEvent.click(within(tester).getByRole('button', { name: 'Search' }))

    expect(await within(tester).findAllByTestId('search-hit')).toHaveLength(1)
    expect(within(tester).getByText(/1 ranked/)).toHaveTextContent('1 ranked · by the query words each holds (no embedder)')
  })

  it("lists the source's chunks a page at a time, and those of one file", async () => {
    rag.chunks = Array.from({ length: 25 }, (_, i) => chunk(`c${i}`, i < 20 ? 'a.md' : 'b.md', i, 25, `text ${i}`))
    renderSources('/sources/handbook')
    const documents = await screen.findByRole('region', { name: 'Documents' })
    expect(await within(documents).findAllByTestId('document-chunk')).toHaveLength(20)
    expect(within(documents).getByText('25 chunks')).toBeInTheDocument()
    await userEvent.click(within(documents).getByRole('button', { name: 'Next page' }))
    await waitFor(() => expect(within(documents).getAllByTestId('document-chunk')).toHaveLength(5))
    expect(within(documents).getByText('text 24')).toBeInTheDocument()
    await userEvent.type(within(documents).getByPlaceholderText('every file'), 'b.md')
    await waitFor(() => expect(rag.calls.at(-1)?.query.get('file')).toBe('b.md'))
    expect(rag.calls.at(-1)?.query.get('offset')).toBe('0')
  })

  it('deletes the source after confirming, then goes back to the list', async () => {
    renderSources('/sources/handbook')
    await userEvent.click(await screen.findByRole('button', { name: 'Delete source' }))
    const dialog = screen.getByRole('alertdialog', { name: 'Delete Handbook?' })
    expect(rag.calls.some((call) => call.method === 'DELETE')).toBe(false)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete source' }))
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(/^\/sources$/))
    expect(rag.calls.find((call) => call.method === 'DELETE')?.path).toBe('/api/rag/sources/handbook')
    expect(await screen.findAllByTestId('source-row')).toHaveLength(1)
  })

  it('says when a source does not exist', async () => {
    renderSources('/sources/nowhere')
    expect(await screen.findByText("No source 'nowhere'.")).toBeInTheDocument()
  })
})
