// The spending limits: each with a headroom bar (consumed of the amount in the current window,
// the window in the limit's own time zone), and create, edit and delete.
import { AlertOctagon, Pencil, Plus, Trash2 } from '@/components/icons'
import { useState } from 'react'
import { spendApi, type SpendingLimit, type WorstCall } from '@/lib/api/spend'
import { formatInt } from '@/lib/format'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { EmptyState } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { formatWindow, headroomOf, PERIOD_LABEL } from './limitForm'
import { useAgentNames } from './agentNames'
import { LimitDialog } from './LimitDialog'
import { formatMoney } from './money'
import { useLimits } from './queries'
import { Loading } from './Loading'

const FILL = { ok: 'bg-primary', near: 'bg-warning', over: 'bg-destructive' }

/**
 * "One call reserves up to $0.02 + input (2,000 output tokens of synapse:synapse-demo, support_agent)":
 * the dearest output among the models the limit covers; its input tokens are reserved on top.
 */
function WorstCallLine({ worst, nameOf }: { worst: WorstCall; nameOf: (key: string) => string }) {
  const of = [`${formatInt(worst.output_tokens)} output tokens of ${worst.model}`, worst.agent && nameOf(worst.agent)].filter(Boolean).join(', ')
  return (
    <p className="truncate" data-testid="limit-worst" title={worst.agent ?? undefined}>
      {worst.amount === null ? `One call's price is unknown: not held to this limit (${of})` : `One call reserves up to ${formatMoney(worst.amount, worst.currency)} + input (${of})`}
    </p>
  )
}

function LimitRow({ limit, nameOf, onEdit, onDelete, onOverruns }: { limit: SpendingLimit; nameOf: (key: string) => string; onEdit: () => void; onDelete: () => void; onOverruns: () => void }) {
  const { fraction, level } = headroomOf(limit)
  const percent = Math.round(fraction * 100)
  const money = (amount: string) => formatMoney(amount, limit.currency)
  const name = `${limit.scope} ${limit.scope_id}`
  const spent = `${money(limit.consumed)} of ${money(limit.amount)} (${percent}%)`
  return (
    <li className="grid gap-3 rounded-lg border bg-card p-4 md:grid-cols-[16rem_1fr_auto] md:items-center" data-testid="limit-row">
      <div className="min-w-0 text-xs text-muted-foreground">
        <p className="truncate text-[13px] text-foreground">
          {limit.scope}{' '}
          {limit.scope === 'agent' && nameOf(limit.scope_id) !== limit.scope_id ? (
            <span title={limit.scope_id} data-testid="limit-agent">
              {nameOf(limit.scope_id)}
            </span>
          ) : (
            <span className="font-mono">{limit.scope_id}</span>
          )}
        </p>
        {PERIOD_LABEL[limit.period] ?? limit.period}
        {!limit.enabled && ' · disabled'}
      </div>
      <div className="min-w-0 space-y-1 text-xs text-muted-foreground">
        <div role="meter" aria-label={`Spent of the limit on ${name}`} aria-valuenow={Math.min(percent, 100)} aria-valuetext={spent} className="h-2 rounded-full bg-muted" data-level={level}>
          <div className={cn('h-full rounded-full', FILL[level])} style={{ width: `${Math.min(100, fraction * 100)}%` }} />
        </div>
        <p className="flex justify-between gap-3">
          <span data-testid="headroom-text">{spent}</span>
          <span>headroom {money(limit.headroom)}</span>
        </p>
        <p className="truncate" data-testid="limit-window">
          {formatWindow(limit.window_start, limit.window_end, limit.timezone)} ({limit.timezone})
        </p>
        {limit.worst_call && <WorstCallLine worst={limit.worst_call} nameOf={nameOf} />}
      </div>
      <div className="flex gap-1">
        <Button variant="ghost" size="sm" onClick={onOverruns}>
          Overruns
        </Button>
        <Button variant="ghost" size="icon-sm" onClick={onEdit} aria-label={`Edit the limit on ${name}`}>
          <Pencil />
        </Button>
        <Button variant="ghost" size="icon-sm" onClick={onDelete} aria-label={`Delete the limit on ${name}`}>
          <Trash2 />
        </Button>
      </div>
    </li>
  )
}

export function LimitsPanel({ onOverruns }: { onOverruns: (limitId: string) => void }) {
  const limits = useLimits()
  const nameOf = useAgentNames()
  const [editing, setEditing] = useState<SpendingLimit | null | undefined>(undefined)
  const [deleting, setDeleting] = useState<SpendingLimit | null>(null)
  const data = limits.data
  return (
    <section aria-label="Spending limits" className="space-y-3">
      <Button size="sm" onClick={() => setEditing(null)}>
        <Plus /> New limit
      </Button>
      <Loading resource={limits} />
      {data?.limits.length === 0 && (
        <EmptyState icon={<AlertOctagon />} title="No spending limits">
          <p>Cap what a tenant, a user, an agent or a preset may spend per day or month: a call that would go past it is refused.</p>
        </EmptyState>
      )}
      <ul className="space-y-2">
        {data?.limits.map((limit) => (
          <LimitRow key={limit.id} limit={limit} nameOf={nameOf} onEdit={() => setEditing(limit)} onDelete={() => setDeleting(limit)} onOverruns={() => onOverruns(limit.id)} />
        ))}
      </ul>
      <LimitDialog open={editing !== undefined} limit={editing ?? null} onClose={() => setEditing(undefined)} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title="Delete this limit?"
        description={`The limit on ${deleting?.scope} ${deleting?.scope_id} stops applying.`}
        confirmLabel="Delete"
        onConfirm={async () => {
          await spendApi.deleteLimit(deleting!.id)
          invalidate('spend:')
        }}
      />
    </section>
  )
}
