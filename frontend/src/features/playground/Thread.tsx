import { ArrowDown } from '@/components/icons'
import { forwardRef, useImperativeHandle, useRef, type ReactNode } from 'react'
import { pausedTools, type Answer } from '@/lib/stream/approval'
import type { ThreadItem } from '@/lib/thread'
import { AssistantMessage } from './AssistantMessage'
import { ErrorCard } from './ErrorCard'
import { NoticeCard } from './NoticeCard'
import { UserBubble } from './UserBubble'
import { useStickToBottom } from './useStickToBottom'

export type UserItem = Extract<ThreadItem, { kind: 'user' }>

interface Actions {
  /** Send the last question again: on every error card. */
  onRetry?: () => void
  /** Ask the last question again in a branch: on the last answer. */
  onRegenerate?: () => void
  /** Answer the tool calls a run paused on: on the last answer that paused. */
  onDecide?: (answers: Answer[]) => void
  /** Why the last answers were refused, shown on that answer's card. */
  decisionError?: string | null
}

function Item({
  item,
  renderUser,
  onRetry,
  onRegenerate,
  onDecide,
  decisionError,
}: { item: ThreadItem; renderUser?: (item: UserItem) => ReactNode } & Actions) {
  switch (item.kind) {
    case 'user':
      return renderUser ? renderUser(item) : <UserBubble text={item.text} attachments={item.attachments} />
    case 'assistant':
      return (
        <AssistantMessage
          parts={item.parts}
          meta={item.meta}
          streaming={item.streaming}
          stopped={item.stopped}
          messageId={item.id}
          onRetry={onRetry}
          onRegenerate={onRegenerate}
          onDecide={onDecide}
          decisionError={decisionError}
        />
      )
    case 'error':
      return (
        <div className="pl-10">
          <ErrorCard error={item.error} onRetry={onRetry} />
        </div>
      )
    case 'notice':
      return (
        <div className="pl-10">
          <NoticeCard kind={item.noticeKind} message={item.message} summary={item.summary} />
        </div>
      )
  }
}

function lastUser(items: ThreadItem[]): number {
  for (let index = items.length - 1; index >= 0; index--) if (items[index]!.kind === 'user') return index
  return 0
}

function lastAnswer(items: ThreadItem[]): number {
  for (let index = items.length - 1; index >= 0; index--) if (items[index]!.kind === 'assistant') return index
  return -1
}

function lastPaused(items: ThreadItem[]): number {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    if (item.kind === 'assistant' && pausedTools(item.parts).length > 0) return index
  }
  return -1
}

/**
 * React keys: the item's id, except for the notices and the error card that follow an answer in its
 * turn, keyed by that answer (`-notice-1`, `-notice-2`, ..., `-error`). Their stored rows have ids
 * of their own that the live turn never saw, so a card keeps its state (an opened traceback or
 * summary) when the stored replay takes over.
 */
export function itemKeys(items: ThreadItem[]): string[] {
  const keys = new Set<string>()
  let answer: string | null = null
  let notices = 0
  return items.map((item) => {
    if (item.kind === 'user') answer = null
    if (item.kind === 'assistant') {
      answer = item.id
      notices = 0
    }
    let key = item.id
    if (answer && item.kind === 'error') key = `${answer}-error`
    if (answer && item.kind === 'notice') key = `${answer}-notice-${++notices}`
    if (keys.has(key)) key = item.id
    keys.add(key)
    return key
  })
}

export interface ThreadHandle {
  scrollToBottom: () => void
}

export const Thread = forwardRef<
  ThreadHandle,
  {
    items: ThreadItem[]
    empty: ReactNode
    /** How a user message is drawn (with its edit action); the plain bubble by default. */
    renderUser?: (item: UserItem) => ReactNode
  } & Actions
>(function Thread({ items, empty, renderUser, onRetry, onRegenerate, onDecide, decisionError }, ref) {
  const scroller = useRef<HTMLDivElement>(null)
  const content = useRef<HTMLDivElement>(null)
  const { atBottom, onScroll, scrollToBottom } = useStickToBottom(scroller, content)
  useImperativeHandle(ref, () => ({ scrollToBottom }), [scrollToBottom])
  const pausedAt = lastPaused(items)
  const keys = itemKeys(items)
  return (
    <div className="relative min-h-0 flex-1">
      <div ref={scroller} onScroll={onScroll} className="h-full overflow-y-auto [scrollbar-gutter:stable]" data-testid="thread">
        <div ref={content} className="mx-auto flex w-full max-w-3xl flex-col gap-6 px-3 py-4 sm:px-6 sm:py-6" aria-label="Conversation">
          {items.length === 0
            ? empty
            : items.map((item, index) => {
                const last = index >= lastUser(items)
                const paused = index === pausedAt
                const answered = item.kind === 'assistant' && !item.streaming && index === lastAnswer(items) && last
                return (
                  <Item
                    key={keys[index]}
                    item={item}
                    renderUser={renderUser}
                    onRetry={onRetry}
                    onRegenerate={answered && !item.parts.some((part) => part.type === 'error') ? onRegenerate : undefined}
                    onDecide={paused ? onDecide : undefined}
                    decisionError={paused ? decisionError : undefined}
                  />
                )
              })}
        </div>
      </div>
      {!atBottom && (
        <button
          type="button"
          onClick={scrollToBottom}
          className="absolute bottom-3 left-1/2 flex -translate-x-1/2 cursor-pointer items-center gap-1 rounded-full border bg-popover px-3 py-1 text-xs shadow-lg hover:bg-accent"
        >
          <ArrowDown className="size-3.5" /> Jump to latest
        </button>
      )}
    </div>
  )
})
