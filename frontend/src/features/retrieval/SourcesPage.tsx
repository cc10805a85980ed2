// /sources — where agents' documents come from: the list of sources (their status, how much is
// indexed, whether agents may search them), a new source, and one source's page (SourcePage).
// Loaded on its own when first opened (App.tsx).
import { LibraryBig, Plus } from '@/components/icons'
import { useState } from 'react'
import { Link, Route, Routes, useNavigate } from 'react-router'
import { EmptyState, PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { Loading } from '@/features/spend/Loading'
import { formatInt, formatRelative } from '@/lib/format'
import { ActiveToggle } from './ActiveToggle'
import { StatusBadge } from './IndexProgress'
import { NewSourceDialog } from './NewSourceDialog'
import { useSources } from './queries'
import { SourcePage } from './SourcePage'

export const sourcePath = (slug: string) => `/sources/${encodeURIComponent(slug)}`

function SourceList() {
  const sources = useSources()
  const navigate = useNavigate()
  const [creating, setCreating] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const list = sources.data?.sources
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="sources-page">
      <PageHeader
        title="Sources"
        description="Documents agents search: folders, uploaded files and connectors, split into chunks and embedded."
        actions={
          <Button size="sm" onClick={() => setCreating(true)}>
            <Plus /> New source
          </Button>
        }
      />
      <div className="space-y-3 px-6 py-4">
        <Loading resource={sources} />
        {error && (
          <p role="alert" className="text-sm text-destructive">
            {error}
          </p>
        )}
        {list?.length === 0 && (
          <EmptyState icon={<LibraryBig />} title="No sources yet">
            <p>A source is a folder, a set of uploaded files or a list of URLs. Once indexed, agents given it search it and cite what they found.</p>
            <code className="block rounded-md bg-muted/60 px-3 py-2 font-mono text-xs text-foreground">synapse rag add handbook --path ./docs</code>
            <Button size="sm" onClick={() => setCreating(true)}>
              <Plus /> New source
            </Button>
          </EmptyState>
        )}
        {list && list.length > 0 && (
          <Table aria-label="Sources">
            <TableHeader>
              <TableRow>
                <TableHead>Source</TableHead>
                <TableHead>Slug</TableHead>
                <TableHead>Kind</TableHead>
                <TableHead>Status</TableHead>
                <TableHead className="text-right">Documents</TableHead>
                <TableHead className="text-right">Chunks</TableHead>
                <TableHead className="text-right">Last indexed</TableHead>
                <TableHead className="text-center">Active</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {list.map((source) => (
                <TableRow key={source.slug} data-testid="source-row">
                  <TableCell>
                    <Link to={sourcePath(source.slug)} className="font-medium text-primary hover:underline">
                      {source.name}
                    </Link>
                  </TableCell>
                  <TableCell className="font-mono text-xs">{source.slug}</TableCell>
                  <TableCell>
                    <Badge variant="mono">{source.kind}</Badge>
                  </TableCell>
                  <TableCell>
                    <StatusBadge status={source.status} />
                    {source.status === 'indexing' && (
                      <span className="ml-2 font-mono text-xs text-muted-foreground">
                        {source.processed_files}/{source.total_files}
                      </span>
                    )}
                  </TableCell>
                  <TableCell className="text-right font-mono text-xs">{formatInt(source.document_count)}</TableCell>
                  <TableCell className="text-right font-mono text-xs">{formatInt(source.chunk_count)}</TableCell>
                  <TableCell className="text-right text-xs text-muted-foreground">{source.last_indexed_at ? formatRelative(source.last_indexed_at) : 'never'}</TableCell>
                  <TableCell className="text-center">
                    <ActiveToggle source={source} onError={setError} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </div>
      <NewSourceDialog
        open={creating}
        onDone={(created) => {
          setCreating(false)
          if (created) navigate(sourcePath(created.slug))
        }}
      />
    </div>
  )
}

export default function SourcesPage() {
  return (
    <Routes>
      <Route index element={<SourceList />} />
      <Route path=":slug" element={<SourcePage />} />
    </Routes>
  )
}
