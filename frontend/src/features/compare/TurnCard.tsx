// One side of one turn in the comparison: what was asked, what came back, and what it cost.
import { ArrowDown, ArrowUp, Paperclip } from '@/components/icons'
import { Markdown } from '@/components/markdown/Markdown'
import type { ToolStatus } from '@/lib/api/types'
import { cn } from '@/lib/cn'
import { formatDuration, formatInt } from '@/lib/format'
import { ToolStatusIcon } from '@/features/playground/ToolCard'
import { formatMoney } from '@/features/spend/money'
import type { Turn, TurnSummary } from './turns'
import { summarizeTurn } from './turns'

/** A cost, or "unpriced" when the price is unknown (never $0: unknown is not free). */
export function costLabel(cost: number | null): string {
  return formatMoney(cost)
}

function Numbers({ summary }: { summary: TurnSummary }) {
  return (
    <dl className="flex flex-wrap gap-x-3 gap-y-1 font-mono text-[11px] text-muted-foreground" data-testid="turn-numbers">
      <div className="flex items-center gap-0.5" title="Input tokens">
        <dt className="sr-only">Input tokens</dt>
        <ArrowUp className="size-3" />
        <dd>{formatInt(summary.inputTokens)}</dd>
      </div>
      <div className="flex items-center gap-0.5" title="Output tokens">
        <dt className="sr-only">Output tokens</dt>
        <ArrowDown className="size-3" />
        <dd>{formatInt(summary.outputTokens)}</dd>
      </div>
      <div title="Cost">
        <dt className="sr-only">Cost</dt>
        <dd>{costLabel(summary.cost)}</dd>
      </div>
      <div title="Duration">
        <dt className="sr-only">Duration</dt>
        <dd>{formatDuration(summary.durationMs)}</dd>
      </div>
      <div title="Model" className="min-w-0">
        <dt className="sr-only">Model</dt>
        <dd className="truncate">{summary.models.join(', ') || 'no model recorded'}</dd>
      </div>
    </dl>
  )
}

function Tools({ summary }: { summary: TurnSummary }) {
  if (summary.tools.length === 0) return null
  return (
    <ul className="space-y-1" aria-label="Tool calls">
      {summary.tools.map((tool, index) => (
        <li key={index} className="flex items-center gap-2 rounded-md border bg-card px-2 py-1 text-xs" data-testid="compare-tool">
          <span className="min-w-0 flex-1 truncate font-mono">{tool.name}</span>
          <ToolStatusIcon status={tool.status as ToolStatus} />
          <span className="w-14 text-right font-mono text-muted-foreground">{formatDuration(tool.durationMs)}</span>
        </li>
      ))}
    </ul>
  )
}

/** One branch's side of a turn; `turn` null: the branch has no turn at this position. */
export function TurnCard({ turn, branch, className }: { turn: Turn | null; branch: string; className?: string }) {
  if (!turn)
    return (
      <div className={cn('rounded-lg border border-dashed p-4 text-sm text-muted-foreground', className)} data-testid="compare-side" data-branch={branch}>
        No turn here in this branch.
      </div>
    )
  const summary = summarizeTurn(turn)
  return (
    <article className={cn('min-w-0 space-y-3 rounded-lg border p-4', className)} data-testid="compare-side" data-branch={branch}>
      {turn.user && (
        <div className="rounded-xl bg-user-bubble px-3 py-2" data-testid="compare-user">
          {summary.attachments.length > 0 && (
            <p className="mb-1 flex flex-wrap gap-2 text-xs text-muted-foreground">
              {summary.attachments.map((name, index) => (
                <span key={index} className="inline-flex items-center gap-1">
                  <Paperclip className="size-3" /> {name}
                </span>
              ))}
            </p>
          )}
          <p className="whitespace-pre-wrap break-words text-[13px]">{summary.userText}</p>
        </div>
      )}
      <Tools summary={summary} />
      {summary.answer && (
        <div data-testid="compare-answer">
          <Markdown text={summary.answer} className="text-[13px]" />
        </div>
      )}
      {summary.errors.map((message, index) => (
        <p key={`e${index}`} className="rounded-md border border-destructive/40 bg-destructive/5 px-2 py-1 text-xs text-destructive" data-testid="compare-error">
          {message}
        </p>
      ))}
      {summary.notices.map((message, index) => (
        <p key={`n${index}`} className="rounded-md border px-2 py-1 text-xs text-muted-foreground">
          {message}
        </p>
      ))}
      <Numbers summary={summary} />
    </article>
  )
}
