import { useState } from 'react'
import { History, Info, KeyRound, Shuffle } from '@/components/icons'

/**
 * Something worth knowing that is not an error, such as a model fallback. A compression notice
 * marks where the older turns started to be sent as a summary, which opens on click. A privacy
 * notice lists what a request carried as placeholders (each with its entity type, never the value).
 */
export function NoticeCard({ kind, message, summary }: { kind: string; message: string; summary?: string | null }) {
  const [open, setOpen] = useState(false)
  const Icon = kind === 'fallback' ? Shuffle : kind === 'compressed' ? History : kind === 'redacted' ? KeyRound : Info
  return (
    <div
      role="note"
      data-testid={kind === 'compressed' ? 'compression-marker' : kind === 'redacted' ? 'privacy-notice' : 'notice'}
      className="flex items-start gap-2 rounded-lg border border-primary/25 bg-primary/5 px-3 py-2 text-[13px]"
    >
      <Icon className="mt-0.5 size-3.5 shrink-0 text-primary" />
      <div className="min-w-0 flex-1">
        <p>
          {kind === 'fallback' && <span className="font-medium">Model fallback: </span>}
          {kind === 'compressed' && <span className="font-medium">History compressed: </span>}
          {kind === 'redacted' && <span className="font-medium">Privacy: </span>}
          {message}
          {summary && (
            <button
              type="button"
              className="ml-2 cursor-pointer text-primary underline-offset-2 hover:underline"
              aria-expanded={open}
              onClick={() => setOpen(!open)}
              data-testid="compression-summary-toggle"
            >
              {open ? 'Hide the summary' : 'Show the summary'}
            </button>
          )}
        </p>
        {summary && open && (
          <pre className="mt-2 max-h-64 overflow-auto whitespace-pre-wrap break-words rounded border bg-background p-2 font-mono text-[12px]" data-testid="compression-summary">
            {summary}
          </pre>
        )}
      </div>
    </div>
  )
}
