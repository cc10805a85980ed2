// One memory: what it says, its scope, who it applies to, where it came from and when, with edit
// and forget.
import { Pencil, Trash2 } from '@/components/icons'
import type { ReactNode } from 'react'
import { Button } from '@/components/ui/button'
import { formatDateTime, formatRelative } from '@/lib/format'
import type { Memory } from './api'
import { useMemoryActions } from './MemoryActions'
import { MemoryOrigin } from './MemoryOrigin'

export function MemoryRow({ memory, showTenant = false, extra, testId = 'memory-row' }: { memory: Memory; showTenant?: boolean; extra?: ReactNode; testId?: string }) {
  const actions = useMemoryActions()
  return (
    <li className="grid gap-2 rounded-lg border bg-card p-3 sm:grid-cols-[1fr_auto] sm:items-start" data-testid={testId} data-id={memory.id}>
      <div className="min-w-0 space-y-1.5">
        {extra && <div className="flex flex-wrap items-center gap-2 text-xs">{extra}</div>}
        <p className="whitespace-pre-wrap break-words text-sm" data-testid="memory-content">
          {memory.content}
        </p>
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground">
          {showTenant && <span className="font-mono text-foreground/85">{memory.tenant}</span>}
          <span data-testid="memory-subject">{memory.subject === null ? 'Whole tenant' : <span className="font-mono text-foreground/85">{memory.subject}</span>}</span>
          <span data-testid="memory-applies-to">
            Applies to {memory.applies_to === null ? 'everyone' : <span className="font-mono text-foreground/85">{memory.applies_to}</span>}
          </span>
          <MemoryOrigin memory={memory} />
          {memory.created_by && <span>by <span className="font-mono">{memory.created_by}</span></span>}
          <time dateTime={memory.created_at} title={formatDateTime(memory.created_at)}>
            {formatRelative(memory.created_at)}
          </time>
        </p>
      </div>
      <div className="flex gap-0.5">
        <Button variant="ghost" size="icon-sm" onClick={() => actions.edit(memory)} aria-label="Edit" title="Edit">
          <Pencil />
        </Button>
        <Button variant="ghost" size="icon-sm" onClick={() => actions.forget(memory)} aria-label="Forget" title="Forget">
          <Trash2 />
        </Button>
      </div>
    </li>
  )
}
