// Under an answer: the document chunks its searches found ("Handbook · leave.md · p. 3 · chunk 2/7"),
// each opening the chunk itself (its text and where it came from) in a dialog.
import { FileText } from '@/components/icons'
import { useState } from 'react'
import { ErrorState } from '@/components/common/States'
import { Dialog, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Skeleton } from '@/components/ui/skeleton'
import { citationLabel, ragApi } from '@/features/retrieval/api'
import { ChunkText, CitationLine } from '@/features/retrieval/ChunkView'
import { api } from '@/lib/api/client'
import { useResource } from '@/lib/resource'
import type { ToolView } from '@/lib/thread'
import { citationsOf, searchCalls, type CitedChunk } from './citations'

/** The search calls with their whole results: a stored call kept only a preview is read whole. */
function useWholeSearches(tools: ToolView[]): ToolView[] {
  const searches = searchCalls(tools)
  const cut = searches.filter((tool) => tool.truncated && tool.invocationId)
  const key = cut.length ? `citations:${cut.map((tool) => tool.invocationId).join(',')}` : null
  const whole = useResource(key, () => Promise.all(cut.map((tool) => api.toolInvocation(tool.invocationId ?? ''))))
  if (!whole.data) return searches
  const results = new Map(whole.data.map((call) => [call.id, call.result]))
  return searches.map((tool) => (tool.invocationId && results.has(tool.invocationId) ? { ...tool, result: results.get(tool.invocationId), truncated: false } : tool))
}

function ChunkDialog({ cited, onClose }: { cited: CitedChunk; onClose: () => void }) {
  const chunk = useResource(`rag:chunk:${cited.chunk_id}`, () => ragApi.chunk(cited.chunk_id))
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()} label={citationLabel(cited)} className="max-h-[85vh] max-w-2xl overflow-y-auto">
      <DialogHeader>
        <DialogTitle>{cited.source_name}</DialogTitle>
      </DialogHeader>
      {chunk.data ? (
        <div className="space-y-3" data-testid="cited-chunk">
          <CitationLine chunk={chunk.data} />
          <ChunkText text={chunk.data.content} />
        </div>
      ) : chunk.error !== undefined ? (
        <ErrorState error={chunk.error} retry={chunk.reload} className="py-6" />
      ) : (
        <Skeleton className="h-32" />
      )}
    </Dialog>
  )
}

export function Citations({ tools }: { tools: ToolView[] }) {
  const cited = citationsOf(useWholeSearches(tools))
  const [open, setOpen] = useState<CitedChunk | null>(null)
  if (cited.length === 0) return null
  return (
    <div className="space-y-1" data-testid="citations">
      <p className="text-[11px] font-medium uppercase tracking-wider text-muted-foreground">Sources</p>
      <ol className="flex flex-wrap gap-1.5">
        {cited.map((item, i) => (
          <li key={item.chunk_id}>
            <button
              type="button"
              onClick={() => setOpen(item)}
              className="inline-flex max-w-96 cursor-pointer items-center gap-1 rounded-md border bg-muted/40 px-2 py-0.5 text-xs hover:bg-accent"
              title={item.heading ? `${citationLabel(item)} · ${item.heading}` : citationLabel(item)}
            >
              <span className="font-mono text-muted-foreground">{i + 1}</span>
              <FileText className="size-3 shrink-0 text-muted-foreground" />
              <span className="truncate">{citationLabel(item)}</span>
            </button>
          </li>
        ))}
      </ol>
      {open && <ChunkDialog cited={open} onClose={() => setOpen(null)} />}
    </div>
  )
}
