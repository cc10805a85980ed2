// An agent's text output (a task run's, a traced run's): rendered as Markdown, the way the
// playground shows an answer, with a switch to the raw text as the model wrote it. The Markdown
// component keeps untrusted output inert (no raw HTML, only safe links, images as links).
import { useState } from 'react'
import { LongText } from '@/components/common/LongText'
import { cn } from '@/lib/cn'
import { Markdown } from './Markdown'

const VIEWS = [
  { value: 'rendered', label: 'Rendered' },
  { value: 'raw', label: 'Raw' },
] as const

/** `text` as Markdown in a bordered box, or as plain text once "Raw" is chosen. */
export function OutputText({ text, label = 'Output', className, testId }: { text: string; label?: string; className?: string; testId?: string }) {
  const [raw, setRaw] = useState(false)
  return (
    <div className={cn('min-w-0 space-y-1', className)}>
      <div className="flex justify-end">
        <div className="inline-flex items-center gap-0.5 rounded-md border p-0.5" role="radiogroup" aria-label={`${label} view`}>
          {VIEWS.map((view) => (
            <button
              key={view.value}
              type="button"
              role="radio"
              aria-checked={raw === (view.value === 'raw')}
              onClick={() => setRaw(view.value === 'raw')}
              className="h-5 cursor-pointer rounded px-1.5 text-[11px] text-muted-foreground hover:text-foreground aria-checked:bg-accent aria-checked:text-foreground"
            >
              {view.label}
            </button>
          ))}
        </div>
      </div>
      <div className="min-w-0 rounded-md border bg-muted/40 px-3 py-2 text-[13px]" data-testid={testId} data-view={raw ? 'raw' : 'rendered'}>
        {raw ? (
          <p className="whitespace-pre-wrap break-words">
            <LongText text={text} />
          </p>
        ) : (
          <Markdown text={text} className="text-[13px]" />
        )}
      </div>
    </div>
  )
}
