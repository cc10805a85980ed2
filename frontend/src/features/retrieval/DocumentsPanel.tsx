// What a source holds once indexed: its chunks ("documents") in file order, a page at a time,
// optionally those of one file only.
import { useState } from 'react'
import { Pagination } from '@/components/ui/pagination'
import { box } from '@/features/rules/Field'
import { Loading } from '@/features/spend/Loading'
import { plural } from '@/lib/format'
import { ChunkText, CitationLine } from './ChunkView'
import { useDocuments } from './queries'

export const PAGE_SIZE = 20

export function DocumentsPanel({ slug }: { slug: string }) {
  const [page, setPage] = useState(1)
  const [file, setFile] = useState('')
  const documents = useDocuments(slug, (page - 1) * PAGE_SIZE, PAGE_SIZE, file.trim())
  const data = documents.data
  const pages = data ? Math.max(1, Math.ceil(data.total / PAGE_SIZE)) : 1
  return (
    <section className="space-y-3" aria-label="Documents">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 className="text-sm font-semibold">
          Documents {data && <span className="font-normal text-muted-foreground">{plural(data.total, 'chunk')}</span>}
        </h2>
        <label className="flex items-center gap-2 text-xs text-muted-foreground">
          File
          <input
            value={file}
            onChange={(event) => {
              setFile(event.target.value)
              setPage(1)
            }}
            placeholder="every file"
            className={`${box} h-8 w-64 font-mono text-xs`}
          />
        </label>
      </div>
      <Loading resource={documents} />
      {data?.chunks.length === 0 && <p className="text-sm text-muted-foreground">No chunks{file.trim() ? ' for this file' : ' yet: index the source'}.</p>}
      {data && data.chunks.length > 0 && (
        <ol className="space-y-2">
          {data.chunks.map((chunk) => (
            <li key={chunk.id} className="space-y-1.5 rounded-lg border bg-card px-3 py-2" data-testid="document-chunk">
              <CitationLine chunk={chunk} />
              <ChunkText text={chunk.content} folded />
            </li>
          ))}
        </ol>
      )}
      <Pagination page={page} pages={pages} onPage={setPage} />
    </section>
  )
}
