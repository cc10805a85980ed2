// /compare?a=<id>&b=<id> — two conversations side by side, turn by turn (stacked on narrow windows).
import { ArrowLeftRight, ChevronRight, Columns2 } from '@/components/icons'
import { useState, type FormEvent, type ReactNode } from 'react'
import { Link, useSearchParams } from 'react-router'
import type { ConversationDetail } from '@/lib/api/types'
import { cn } from '@/lib/cn'
import { formatDuration, formatInt } from '@/lib/format'
import { useConversation } from '@/lib/queries'
import { EmptyState, ErrorState, PageHeader } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { conversationPath } from '@/features/conversations/paths'
import { costLabel, TurnCard } from './TurnCard'
import { branchTitles } from './titles'
import { alignTurns, branchTotals, type Turn } from './turns'

const GRID = 'grid grid-cols-1 gap-3 lg:grid-cols-2'

function BranchLabel({ branch, children }: { branch: 'A' | 'B'; children?: ReactNode }) {
  return (
    <span className="flex min-w-0 items-center gap-1.5 text-xs text-muted-foreground">
      <span className={cn('flex size-5 shrink-0 items-center justify-center rounded font-mono text-[11px] font-semibold', branch === 'A' ? 'bg-primary/15 text-primary' : 'bg-warning/15 text-warning')}>{branch}</span>
      {children}
    </span>
  )
}

function BranchHeader({ branch, detail, title }: { branch: 'A' | 'B'; detail: ConversationDetail; title: string }) {
  const c = detail.conversation
  return (
    <div className="min-w-0 space-y-0.5" data-testid="compare-branch">
      <BranchLabel branch={branch}>
        <Link to={conversationPath(c.agent_key, c.id)} title={title} className="truncate text-sm font-medium text-foreground hover:underline" data-testid="compare-title">
          {title}
        </Link>
      </BranchLabel>
      <p className="truncate pl-6 text-xs text-muted-foreground">
        {c.agent_name} · <span className="font-mono">{c.id}</span>
      </p>
    </div>
  )
}

function Totals({ branch, detail }: { branch: 'A' | 'B'; detail: ConversationDetail }) {
  const totals = branchTotals(detail.messages)
  return (
    <div className="@container rounded-lg border bg-card px-4 py-3" data-testid="compare-totals" data-branch={branch}>
      <BranchLabel branch={branch}>Totals</BranchLabel>
      <dl className="mt-2 grid grid-cols-3 gap-x-4 gap-y-1 text-xs @md:grid-cols-6">
        {(
          [
            ['Turns', formatInt(totals.turns)],
            ['Input', formatInt(totals.inputTokens)],
            ['Output', formatInt(totals.outputTokens)],
            ['Cost', costLabel(totals.cost)],
            ['Duration', formatDuration(totals.durationMs)],
            ['Tools', formatInt(totals.toolCalls)],
          ] as const
        ).map(([label, value]) => (
          <div key={label}>
            <dt className="text-muted-foreground">{label}</dt>
            <dd className="font-mono">{value}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-1 truncate font-mono text-[11px] text-muted-foreground">{totals.models.join(', ') || 'no model recorded'}</p>
    </div>
  )
}

function SharedTurns({ start, turns }: { start: number; turns: Turn[] }) {
  const [open, setOpen] = useState(false)
  const label = `${turns.length} shared ${turns.length === 1 ? 'turn' : 'turns'}`
  return (
    <div className="rounded-lg border border-dashed" data-testid="shared-turns">
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} className="flex w-full cursor-pointer items-center gap-2 px-4 py-2.5 text-left text-sm hover:bg-accent/50">
        <ChevronRight className={cn('size-4 text-muted-foreground transition-transform', open && 'rotate-90')} />
        <span className="font-medium">{label}</span>
        <span className="text-xs text-muted-foreground">
          {turns.length === 1 ? `turn ${start + 1}` : `turns ${start + 1}–${start + turns.length}`}, the same in both
        </span>
      </button>
      {open && (
        <div className="space-y-3 border-t p-3">
          {turns.map((turn, index) => (
            <TurnCard key={index} turn={turn} branch="shared" />
          ))}
        </div>
      )}
    </div>
  )
}

function Comparison({ a, b, onSwap }: { a: string; b: string; onSwap: () => void }) {
  const left = useConversation(a)
  const right = useConversation(b)
  const failed = [left, right].find((side) => !side.data && side.error !== undefined)
  if (failed) return <ErrorState error={failed.error} retry={failed.reload} />
  if (!left.data || !right.data)
    return (
      <div className={cn(GRID, 'px-6 py-6')} aria-busy="true" aria-label="Loading the conversations">
        <Skeleton className="h-40" />
        <Skeleton className="h-40" />
      </div>
    )
  const rows = alignTurns(left.data.messages, right.data.messages)
  const [titleA, titleB] = branchTitles(left.data.conversation, right.data.conversation)
  return (
    <div className="space-y-4 px-6 py-5">
      <div className={cn(GRID, 'items-end')}>
        <BranchHeader branch="A" detail={left.data} title={titleA} />
        <div className="flex min-w-0 items-end justify-between gap-2">
          <BranchHeader branch="B" detail={right.data} title={titleB} />
          <Button variant="ghost" size="sm" onClick={onSwap} aria-label="Swap A and B">
            <ArrowLeftRight /> Swap
          </Button>
        </div>
      </div>
      <section aria-label="Summary" className={GRID} data-testid="compare-summary">
        <Totals branch="A" detail={left.data} />
        <Totals branch="B" detail={right.data} />
      </section>
      <section aria-label="Turns" className="space-y-3">
        {rows.map((row) =>
          row.kind === 'shared' ? (
            <SharedTurns key={`shared-${row.start}`} start={row.start} turns={row.turns} />
          ) : (
            <div key={`turn-${row.index}`} className="space-y-1.5" data-testid="compare-turn">
              <h2 className="text-xs font-medium uppercase tracking-wider text-muted-foreground">Turn {row.index + 1}</h2>
              <div className={GRID}>
                <div className="min-w-0 space-y-1">
                  <span className="lg:hidden"><BranchLabel branch="A" /></span>
                  <TurnCard turn={row.a} branch="A" />
                </div>
                <div className="min-w-0 space-y-1">
                  <span className="lg:hidden"><BranchLabel branch="B" /></span>
                  <TurnCard turn={row.b} branch="B" />
                </div>
              </div>
            </div>
          ),
        )}
        {rows.length === 0 && <p className="text-sm text-muted-foreground">Neither conversation has a message yet.</p>}
      </section>
    </div>
  )
}

function Picker({ a, b, onPick }: { a: string; b: string; onPick: (a: string, b: string) => void }) {
  const [first, setFirst] = useState(a)
  const [second, setSecond] = useState(b)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (first.trim() && second.trim()) onPick(first.trim(), second.trim())
  }
  return (
    <EmptyState icon={<Columns2 />} title="Pick two conversations">
      <p>Open a comparison from a fork's banner in the playground, or give two conversation ids.</p>
      <form onSubmit={submit} className="mx-auto grid max-w-sm gap-2 pt-2 text-left">
        <Input aria-label="Conversation A" placeholder="Conversation A id" value={first} onChange={(event) => setFirst(event.target.value)} className="h-8 font-mono text-xs" />
        <Input aria-label="Conversation B" placeholder="Conversation B id" value={second} onChange={(event) => setSecond(event.target.value)} className="h-8 font-mono text-xs" />
        <Button type="submit" size="sm" disabled={!first.trim() || !second.trim()}>
          Compare
        </Button>
      </form>
    </EmptyState>
  )
}

export function ComparePage() {
  const [params, setParams] = useSearchParams()
  const a = params.get('a') ?? ''
  const b = params.get('b') ?? ''
  const pick = (first: string, second: string) => setParams(new URLSearchParams({ a: first, b: second }))
  return (
    <div className="flex h-full flex-col overflow-y-auto">
      <PageHeader title="Compare" description="Two conversations turn by turn; the turns they share are folded into one row." />
      {a && b ? <Comparison key={`${a}|${b}`} a={a} b={b} onSwap={() => pick(b, a)} /> : <Picker a={a} b={b} onPick={pick} />}
    </div>
  )
}
