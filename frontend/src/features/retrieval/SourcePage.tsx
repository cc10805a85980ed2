// /sources/:slug — one source: what it reads and how much is indexed, a run started from here (or
// every chunk embedded again with the current embedder) and its live progress, the files that
// failed, a query tester, its chunks, and deleting it.
import { Play, RotateCw, Trash2 } from '@/components/icons'
import { useState, type ReactNode } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { messageOf, PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { Loading } from '@/features/spend/Loading'
import { formatDateTime, formatInt } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { ActiveToggle } from './ActiveToggle'
import { ragApi, type Source } from './api'
import { DocumentsPanel } from './DocumentsPanel'
import { FailedFiles } from './FailedFiles'
import { IndexProgress, StatusBadge } from './IndexProgress'
import { useIndexing, useSource } from './queries'
import { QueryTester } from './QueryTester'
import { UploadFiles } from './UploadFiles'

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0 space-y-0.5">
      <dt className="text-[11px] font-medium uppercase tracking-wider text-muted-foreground">{label}</dt>
      <dd className="break-words text-sm">{children}</dd>
    </div>
  )
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [])

/** What the source reads, from its kind's config: a folder and its globs, or its URLs. */
function Reads({ source }: { source: Source }) {
  const { config } = source
  if (source.kind === 'folder') {
    const include = list(config.include)
    const exclude = list(config.exclude)
    return (
      <>
        <Fact label="Folder">
          <span className="font-mono text-xs">{typeof config.path === 'string' ? config.path : '—'}</span>
        </Fact>
        <Fact label="Include">{include.length ? <span className="font-mono text-xs">{include.join(', ')}</span> : 'every supported file'}</Fact>
        {exclude.length > 0 && (
          <Fact label="Exclude">
            <span className="font-mono text-xs">{exclude.join(', ')}</span>
          </Fact>
        )}
      </>
    )
  }
  if (source.kind === 'urls')
    return (
      <Fact label="URLs">
        <ul className="font-mono text-xs">
          {list(config.urls).map((url) => (
            <li key={url} className="truncate" title={url}>
              {url}
            </li>
          ))}
        </ul>
      </Fact>
    )
  return null
}

function SourceDetail({ source }: { source: Source }) {
  const navigate = useNavigate()
  const indexing = useIndexing(source)
  const [asking, setAsking] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [deleting, setDeleting] = useState(false)
  const running = indexing.status === 'indexing'
  const index = async (reembed: boolean) => {
    setAsking(true)
    setError(null)
    try {
      const answer = await ragApi.index(source.slug, reembed)
      indexing.queued(answer.source)
      invalidate('rag:sources')
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      setAsking(false)
    }
  }
  const progress = indexing.progress
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="source-page">
      <PageHeader
        title={source.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <Link to="/sources" className="text-primary hover:underline">
              Sources
            </Link>
            <span className="font-mono">{source.slug}</span>
            <Badge variant="mono">{source.kind}</Badge>
            <StatusBadge status={indexing.status} />
          </span>
        }
        actions={
          <>
            <Button size="sm" onClick={() => void index(false)} disabled={asking || running}>
              <Play /> Index
            </Button>
            <Button size="sm" variant="outline" onClick={() => void index(true)} disabled={asking || running} title="Embed every chunk again with the current embedder">
              <RotateCw /> Re-embed
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setDeleting(true)} aria-label="Delete source">
              <Trash2 />
            </Button>
          </>
        }
      />
      <div className="space-y-6 px-6 py-4">
        {error && (
          <p role="alert" className="text-sm text-destructive">
            {error}
          </p>
        )}
        <IndexProgress progress={progress} waiting={indexing.waiting} />
        {(progress?.last_error ?? source.last_error) && indexing.status === 'failed' && (
          <p role="status" className="rounded-md border border-destructive/30 bg-destructive/5 px-3 py-2 text-sm text-destructive" data-testid="source-last-error">
            {progress?.last_error ?? source.last_error}
          </p>
        )}
        <dl className="grid gap-4 sm:grid-cols-3">
          {source.description && (
            <div className="sm:col-span-3">
              <Fact label="Description">{source.description}</Fact>
            </div>
          )}
          <Reads source={source} />
          <Fact label="Documents">{formatInt(progress?.document_count ?? source.document_count)} files</Fact>
          <Fact label="Chunks">{formatInt(progress?.chunk_count ?? source.chunk_count)}</Fact>
          <Fact label="Last indexed">{(progress?.last_indexed_at ?? source.last_indexed_at) ? formatDateTime((progress?.last_indexed_at ?? source.last_indexed_at)!) : 'never'}</Fact>
          <Fact label="Embedder">
            <span className="font-mono text-xs">{source.embedder ?? '—'}</span>
          </Fact>
          <Fact label="Tenant">{source.tenant ? <span className="font-mono text-xs">{source.tenant}</span> : 'every tenant'}</Fact>
          <Fact label="Active">
            <label className="flex items-center gap-2">
              <ActiveToggle source={source} onError={setError} />
              <span className="text-xs text-muted-foreground">{source.active ? 'agents given it search it' : 'agents do not search it'}</span>
            </label>
          </Fact>
        </dl>
        {source.kind === 'upload' && <UploadFiles slug={source.slug} />}
        <FailedFiles slug={source.slug} />
        <QueryTester slug={source.slug} />
        <DocumentsPanel slug={source.slug} />
      </div>
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete ${source.name}?`}
        description="Its chunks are removed from the index and agents stop finding them."
        confirmLabel="Delete source"
        onConfirm={async () => {
          await ragApi.remove(source.slug)
          navigate('/sources')
          invalidate('rag:')
        }}
      />
    </div>
  )
}

export function SourcePage() {
  const slug = useParams().slug ?? ''
  const source = useSource(slug)
  if (!source.data)
    return (
      <div className="px-6 py-4">
        <Loading resource={source} />
      </div>
    )
  return <SourceDetail key={slug} source={source.data} />
}
