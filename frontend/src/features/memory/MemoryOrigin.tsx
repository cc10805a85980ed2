// Where a memory came from: its source, and when it came out of a conversation, a link to it.
import { MessageSquare } from '@/components/icons'
import { Link } from 'react-router'
import { conversationPath } from '@/features/conversations/paths'
import type { Memory } from './api'
import { ORIGIN_LABELS, SOURCE_LABELS } from './labels'

export function MemoryOrigin({ memory }: { memory: Memory }) {
  const { conversation_id: conversation, agent_key: agent, source } = memory
  if (conversation === null) return <span data-testid="memory-source">{SOURCE_LABELS[source]}</span>
  if (agent === null)
    return (
      <span data-testid="memory-source">
        {ORIGIN_LABELS[source]} <span className="font-mono">{conversation}</span>
      </span>
    )
  return (
    <Link to={conversationPath(agent, conversation)} className="inline-flex items-center gap-1 text-primary hover:underline" data-testid="memory-source">
      <MessageSquare className="size-3.5" />
      {ORIGIN_LABELS[source]}
    </Link>
  )
}
