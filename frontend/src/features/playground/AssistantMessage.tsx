import { Sparkles } from '@/components/icons'
import type { Answer } from '@/lib/stream/approval'
import { pausedTools } from '@/lib/stream/approval'
import { groupParts, type AssistantPart, type MetaView, type PartGroup } from '@/lib/thread'
import { Markdown } from '@/components/markdown/Markdown'
import { ErrorCard } from './ErrorCard'
import { MessageMeta } from './MessageMeta'
import { ApprovalCard } from './ApprovalCard'
import { Citations } from './Citations'
import { AttachmentTile } from './Attachments'
import { NoticeCard } from './NoticeCard'
import { Sources } from './Sources'
import { StructuredOutputCard } from './StructuredOutputCard'
import { ThinkingPane } from './ThinkingPane'
import { ToolStack } from './ToolCard'

function Part({ part, reasoningTokens, onRetry }: { part: AssistantPart; reasoningTokens: number | null; onRetry?: () => void }) {
  switch (part.type) {
    case 'text':
      return part.text ? <Markdown text={part.text} streaming={part.streaming} className="text-[14px]" /> : null
    case 'reasoning':
      return <ThinkingPane text={part.text} streaming={part.streaming} tokens={part.streaming ? null : reasoningTokens} />
    case 'structured-output':
      return <StructuredOutputCard output={part.output} />
    case 'notice':
      return <NoticeCard kind={part.noticeKind} message={part.message} summary={part.summary} />
    case 'error':
      return <ErrorCard error={part.error} onRetry={onRetry} />
    case 'file':
      return /^(https?:|\/(?!\/)|data:image\/)/i.test(part.url) ? (
        <AttachmentTile file={{ name: part.mediaType, mediaType: part.mediaType, size: 0, url: part.url }} />
      ) : null
    case 'tool':
    case 'source':
      return null
  }
}

/**
 * Keys by kind and position ("tools-0", "text-1"): the same in a live turn and in its stored
 * replay, whose part ids differ, so nothing remounts when one replaces the other.
 */
function keyed(groups: PartGroup[]): [string, PartGroup][] {
  const seen: Record<string, number> = {}
  return groups.map((group) => {
    const kind = group.type === 'single' ? group.part.type : group.type
    seen[kind] = (seen[kind] ?? 0) + 1
    return [`${kind}-${seen[kind]}`, group]
  })
}

function Typing() {
  return (
    <span className="inline-flex h-6 items-center gap-1" aria-label="Waiting for the answer">
      {[0, 150, 300].map((delay) => (
        <span key={delay} className="size-1.5 animate-pulse rounded-full bg-muted-foreground/60" style={{ animationDelay: `${delay}ms` }} />
      ))}
    </span>
  )
}

export function AssistantMessage({
  parts,
  meta,
  streaming,
  stopped,
  messageId,
  onRetry,
  onRegenerate,
  onDecide,
  decisionError,
}: {
  parts: AssistantPart[]
  meta: MetaView | null
  streaming: boolean
  stopped?: boolean
  messageId?: string
  /** Send the question again (shown on its error cards). */
  onRetry?: () => void
  /** Ask the question again in a branch (shown on a finished answer). */
  onRegenerate?: () => void
  /** Send the answers to the tool calls this answer paused on (absent: its card is read-only). */
  onDecide?: (answers: Answer[]) => void
  /** Why the last answers to them were refused. */
  decisionError?: string | null
}) {
  const paused = pausedTools(parts)
  const thoughts = parts.filter((part) => part.type === 'reasoning').length
  const reasoningTokens = thoughts === 1 ? meta?.usage?.reasoning_tokens || null : null
  return (
    <div className="flex gap-3" data-testid="assistant-message" aria-busy={streaming}>
      <div className="mt-0.5 flex size-7 shrink-0 items-center justify-center rounded-lg border bg-card text-primary">
        <Sparkles className="size-3.5" />
      </div>
      <div className="min-w-0 flex-1 space-y-2.5">
        {parts.length === 0 && streaming && <Typing />}
        {keyed(groupParts(parts)).map(([key, group]) =>
          group.type === 'tools' ? (
            <ToolStack key={key} tools={group.tools} />
          ) : group.type === 'sources' ? (
            <Sources key={key} sources={group.sources} />
          ) : (
            <Part key={key} part={group.part} reasoningTokens={reasoningTokens} onRetry={onRetry} />
          ),
        )}
        <Citations tools={parts.flatMap((part) => (part.type === 'tool' ? [part.tool] : []))} />
        {paused.length > 0 && <ApprovalCard tools={paused} onSend={streaming ? undefined : onDecide} error={decisionError} />}
        <MessageMeta
          meta={meta}
          streaming={streaming}
          stopped={stopped}
          messageId={messageId}
          toolCount={parts.filter((part) => part.type === 'tool').length}
          onRegenerate={onRegenerate}
        />
      </div>
    </div>
  )
}
