// One rule: its text, who it applies to, its priority and whether it is paused, with move up and
// down (among the rules ordered with it), pause or resume, edit and delete.
import { ArrowDown, ArrowUp, Pause, Pencil, Play, Trash2 } from '@/components/icons'
import { useState, type ReactNode } from 'react'
import { messageOf } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { rulesApi, type Rule } from './api'
import { moveBy } from './order'

function Action({ label, onClick, disabled, children }: { label: string; onClick: () => void; disabled: boolean; children: ReactNode }) {
  return (
    <Button variant="ghost" size="icon-sm" onClick={onClick} disabled={disabled} aria-label={label} title={label}>
      {children}
    </Button>
  )
}

/** `rule`, at `index` of `list` (the rules ordered with it). */
export function RuleRow({ rule, list, index, onEdit, onDelete }: { rule: Rule; list: Rule[]; index: number; onEdit: () => void; onDelete: () => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  const run = async (changes: { id: string; body: { priority?: number; enabled?: boolean } }[]) => {
    setBusy(true)
    setError(null)
    try {
      for (const { id, body } of changes) await rulesApi.update(id, body)
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      invalidate('rules:')
      setBusy(false)
    }
  }
  const move = (step: -1 | 1) => run(moveBy(list, index, step).map(({ id, priority }) => ({ id, body: { priority } })))

  return (
    <li className={cn('grid gap-2 rounded-lg border bg-card p-3 sm:grid-cols-[1fr_auto] sm:items-start', !rule.enabled && 'opacity-70')} data-testid="rule-row" data-id={rule.id}>
      <div className="min-w-0 space-y-1.5">
        <p className="whitespace-pre-wrap break-words text-sm" data-testid="rule-text">
          {rule.text}
        </p>
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground">
          <span data-testid="rule-applies-to">
            Applies to {rule.applies_to === null ? 'everyone' : <span className="font-mono text-foreground/85">{rule.applies_to}</span>}
          </span>
          <span data-testid="rule-priority">Priority {rule.priority}</span>
          {rule.enabled ? (
            <Badge variant="success">Enabled</Badge>
          ) : (
            <Badge variant="warning" data-testid="rule-paused">
              Paused
            </Badge>
          )}
        </p>
        {error && (
          <p role="alert" className="text-xs text-destructive">
            {error}
          </p>
        )}
      </div>
      <div className="flex gap-0.5">
        <Action label="Move up" onClick={() => move(-1)} disabled={busy || index === 0}>
          <ArrowUp />
        </Action>
        <Action label="Move down" onClick={() => move(1)} disabled={busy || index === list.length - 1}>
          <ArrowDown />
        </Action>
        <Action label={rule.enabled ? 'Pause' : 'Resume'} onClick={() => run([{ id: rule.id, body: { enabled: !rule.enabled } }])} disabled={busy}>
          {rule.enabled ? <Pause /> : <Play />}
        </Action>
        <Action label="Edit" onClick={onEdit} disabled={busy}>
          <Pencil />
        </Action>
        <Action label="Delete" onClick={onDelete} disabled={busy}>
          <Trash2 />
        </Action>
      </div>
    </li>
  )
}
