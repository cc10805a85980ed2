// One chunk as the pages show it: where it came from (source, file, page, heading, its place in the
// file) above its text. Long texts fold until asked for.
import { useState } from 'react'
import { LongText } from '@/components/common/LongText'
import { cn } from '@/lib/cn'
import { citationLabel, type Chunk } from './api'

export function CitationLine({ chunk, className }: { chunk: Chunk; className?: string }) {
  const { citation } = chunk
  return (
    <p className={cn('flex min-w-0 flex-wrap items-baseline gap-x-2 text-xs text-muted-foreground', className)} data-testid="chunk-citation">
      <span className="truncate font-mono">{citationLabel(citation)}</span>
      {citation.heading && <span className="truncate">§ {citation.heading}</span>}
    </p>
  )
}

/** The chunk's text, folded to a few lines when `folded` (a list), whole otherwise (a dialog). */
export function ChunkText({ text, folded = false }: { text: string; folded?: boolean }) {
  const [open, setOpen] = useState(!folded)
  const long = text.length > 360
  return (
    <div className="space-y-1">
      <p className={cn('whitespace-pre-wrap break-words text-[13px] leading-relaxed', !open && long && 'line-clamp-4')} data-testid="chunk-text">
        <LongText text={text} />
      </p>
      {folded && long && (
        <button type="button" className="cursor-pointer text-xs text-primary hover:underline" onClick={() => setOpen(!open)}>
          {open ? 'Show less' : 'Show all'}
        </button>
      )}
    </div>
  )
}
