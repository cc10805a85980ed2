import { useState } from 'react'
import { FileText, Music, Paperclip, X } from '@/components/icons'
import { formatBytes } from '@/lib/format'
import type { AttachmentView } from '@/lib/thread'
import { cn } from '@/lib/cn'

function FileIcon({ mediaType }: { mediaType: string }) {
  if (mediaType.startsWith('audio/')) return <Music className="size-3.5 shrink-0" />
  if (mediaType === 'application/pdf' || mediaType.startsWith('text/')) return <FileText className="size-3.5 shrink-0" />
  return <Paperclip className="size-3.5 shrink-0" />
}

/** One attachment: an image thumbnail, or a chip with its name and size. Links open the file. */
export function AttachmentTile({ file, onRemove }: { file: AttachmentView; onRemove?: () => void }) {
  const [broken, setBroken] = useState(false)
  const image = file.mediaType.startsWith('image/') && file.url && !broken
  const body = image ? (
    <img src={file.url ?? ''} alt={file.name} onError={() => setBroken(true)} className="size-16 rounded-md border object-cover" loading="lazy" />
  ) : (
    <span className="flex h-8 max-w-56 items-center gap-1.5 rounded-md border bg-background/60 px-2 text-xs">
      <FileIcon mediaType={file.mediaType} />
      <span className="truncate">{file.name}</span>
      <span className="shrink-0 font-mono text-[10px] text-muted-foreground">{formatBytes(file.size)}</span>
    </span>
  )
  return (
    <span className="relative inline-flex" data-testid="attachment" title={`${file.name} (${formatBytes(file.size)})`}>
      {file.url && !onRemove ? (
        <a href={file.url} target="_blank" rel="noopener noreferrer" className="rounded-md">
          {body}
        </a>
      ) : (
        body
      )}
      {onRemove && (
        <button
          type="button"
          onClick={onRemove}
          aria-label={`Remove ${file.name}`}
          className="absolute -right-1.5 -top-1.5 flex size-4 cursor-pointer items-center justify-center rounded-full border bg-popover text-muted-foreground hover:text-foreground"
        >
          <X className="size-3" />
        </button>
      )}
    </span>
  )
}

export function AttachmentList({ files, className, onRemove }: { files: AttachmentView[]; className?: string; onRemove?: (index: number) => void }) {
  if (files.length === 0) return null
  return (
    <div className={cn('flex flex-wrap gap-2', className)}>
      {files.map((file, i) => (
        <AttachmentTile key={`${file.name}-${i}`} file={file} onRemove={onRemove ? () => onRemove(i) : undefined} />
      ))}
    </div>
  )
}
