// One vector memory: what it says, whose it is (a person's or one conversation's), where it came
// from and when, with forget when the list offers it.
import { Trash2 } from '@/components/icons'
import { Button } from '@/components/ui/button'
import { formatDateTime, formatRelative } from '@/lib/format'
import type { VectorMemory } from './api'
import { SCOPE_LABELS, VECTOR_SOURCE_LABELS } from './labels'

export function VectorMemoryRow({ memory, onForget }: { memory: VectorMemory; onForget?: (memory: VectorMemory) => void }) {
  return (
    <li className="grid gap-2 rounded-lg border bg-card p-3 sm:grid-cols-[1fr_auto] sm:items-start" data-testid="vector-memory-row" data-id={memory.id}>
      <div className="min-w-0 space-y-1.5">
        <p className="whitespace-pre-wrap break-words text-sm" data-testid="vector-memory-content">
          {memory.content}
        </p>
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground">
          <span data-testid="vector-memory-scope">{SCOPE_LABELS[memory.scope]}</span>
          <span data-testid="vector-memory-person">{memory.person === null ? 'No person' : <span className="font-mono text-foreground/85">{memory.person}</span>}</span>
          <span data-testid="vector-memory-source">{VECTOR_SOURCE_LABELS[memory.source_type]}</span>
          {memory.conversation_id && (
            <span data-testid="vector-memory-conversation">
              Conversation <span className="font-mono">{memory.conversation_id}</span>
            </span>
          )}
          {memory.embedder === null && <span>Not embedded</span>}
          <time dateTime={memory.created_at} title={formatDateTime(memory.created_at)}>
            {formatRelative(memory.created_at)}
          </time>
        </p>
      </div>
      {onForget && (
        <Button variant="ghost" size="icon-sm" onClick={() => onForget(memory)} aria-label="Forget" title="Forget">
          <Trash2 />
        </Button>
      )}
    </li>
  )
}
