import { Brain, ChevronRight } from '@/components/icons'
import { useId, useState } from 'react'
import { cn } from '@/lib/cn'
import { LongText } from '@/components/common/LongText'

/** The model's reasoning, kept apart from the answer and folded away unless asked for. */
/**
 * `tokens`: the reasoning tokens the provider reported for this thought, when known (a turn's
 * usage counts its reasoning as a whole, so only a turn with one thought can say).
 */
export function ThinkingPane({ text, streaming, tokens = null }: { text: string; streaming: boolean; tokens?: number | null }) {
  const [open, setOpen] = useState(false)
  const id = useId()
  return (
    <div className="rounded-lg border border-dashed bg-muted/30" data-testid="thinking">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        className="flex h-8 w-full cursor-pointer items-center gap-2 px-3 text-left text-xs text-muted-foreground hover:text-foreground"
      >
        <ChevronRight className={cn('size-3.5 transition-transform', open && 'rotate-90')} />
        <Brain className="size-3.5" />
        <span className={cn('font-medium', streaming && 'animate-pulse')}>{streaming ? 'Thinking…' : 'Thought'}</span>
        <span className="ml-auto font-mono text-[11px]" title={`${text.length.toLocaleString()} characters`}>
          {tokens ? `${tokens.toLocaleString()} ${tokens === 1 ? 'token' : 'tokens'}` : `${text.length.toLocaleString()} chars`}
        </span>
      </button>
      {open && (
        <div id={id} className="max-h-80 overflow-y-auto whitespace-pre-wrap break-words border-t px-3 py-2 text-[13px] italic leading-relaxed text-muted-foreground">
          <LongText text={text} limit={50_000} />
        </div>
      )}
    </div>
  )
}
