// The scope a stored conversation was created with, as chips in the playground header.
import { ScopeChips } from '@/features/conversations/ScopeChips'
import { scopeDescription, scopeParts, type Scoped } from '@/features/conversations/scope'

export function ConversationScope({ scoped }: { scoped: Scoped }) {
  if (scopeParts(scoped).length === 0) return null
  return (
    <span className="flex min-w-0" title={scopeDescription(scoped)} data-testid="conversation-scope">
      <ScopeChips scoped={scoped} />
    </span>
  )
}
