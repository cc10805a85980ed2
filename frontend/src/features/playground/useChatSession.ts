// The live side of a playground: sends messages (and the decisions a paused run waits for), applies
// stream chunks as they arrive, aborts the run on navigation, a new conversation or Stop, and hands
// finished turns over to the replay.
import { useCallback, useEffect, useRef, useState } from 'react'
import { api, ApiError } from '@/lib/api/client'
import { answersSummary, decisionsOf, type Answer } from '@/lib/stream/approval'
import { streamChat } from '@/lib/stream/chat'
import type { UIChunk } from '@/lib/stream/chunks'
import { applyChunk, emptyTurn, interruptTurn, type Turn } from '@/lib/stream/turn'
import type { AttachmentView } from '@/lib/thread'
import { invalidate, refresh } from '@/lib/resource'
import type { ChatAsLabels } from './chatAsLabels'
import { storedTurnSettled } from './settle'

export interface LiveExchange {
  key: string
  user: { text: string; attachments: AttachmentView[] }
  turn: Turn
  /** The answers this turn resumes a paused run with: those calls show decided meanwhile. */
  answers?: Answer[]
}

export interface SendInput {
  message: string
  files: File[]
  model: string | null
  /** Values for the agent's deps_schema (the deps form's). */
  deps?: Record<string, unknown> | null
  /** Who a new conversation chats as: sent with its first message only. */
  chatAs?: Partial<ChatAsLabels> | null
}

let counter = 0

function conversationIdOf(chunk: UIChunk): string | undefined {
  if (chunk.type === 'start' || chunk.type === 'message-metadata' || chunk.type === 'finish')
    return chunk.messageMetadata?.conversation_id
  return undefined
}

function messageIdOf(chunk: UIChunk): string | undefined {
  if (chunk.type === 'start' || chunk.type === 'message-metadata' || chunk.type === 'finish')
    return chunk.messageMetadata?.message_id ?? undefined
  return undefined
}

function userMessageIdOf(chunk: UIChunk): string | undefined {
  if (chunk.type === 'start' || chunk.type === 'message-metadata' || chunk.type === 'finish')
    return chunk.messageMetadata?.user_message_id ?? undefined
  return undefined
}

function localAttachment(file: File): AttachmentView {
  const mediaType = file.type || 'application/octet-stream'
  return { name: file.name, mediaType, size: file.size, url: mediaType.startsWith('image/') ? URL.createObjectURL(file) : null }
}

function requestFailed(error: unknown): Turn {
  const message = error instanceof Error ? error.message : 'The message could not be sent.'
  const className = error instanceof ApiError ? `${error.status || 'Network'} ${error.code}` : 'Error'
  return {
    ...emptyTurn(),
    status: 'error',
    parts: [{ type: 'error', id: 'request-error', error: { className, message, traceback: null, recoverable: true } }],
  }
}

export function useChatSession({
  slug,
  routeConversationId,
  onConversationCreated,
}: {
  slug: string
  routeConversationId: string | null
  onConversationCreated: (id: string) => void
}) {
  const [conversationId, setConversationId] = useState<string | null>(routeConversationId)
  const [live, setLive] = useState<LiveExchange[]>([])
  const [busy, setBusy] = useState(false)
  // Why the last decisions were refused (calls decided elsewhere, say): shown on the paused card.
  const [decisionError, setDecisionError] = useState<string | null>(null)
  // A conversation this tab just created is not read back until its first turn is stored: the
  // server may not have written it yet, and the live turn shows everything meanwhile.
  const [fresh, setFresh] = useState(false)
  const controller = useRef<AbortController | null>(null)
  const current = useRef<string | null>(routeConversationId)
  const created = useRef(onConversationCreated)
  created.current = onConversationCreated

  // The URL moved to another conversation (or to a new one): stop the run and switch.
  useEffect(() => {
    if (routeConversationId === current.current) return
    controller.current?.abort()
    controller.current = null
    current.current = routeConversationId
    setConversationId(routeConversationId)
    setFresh(false)
    setLive([])
    setBusy(false)
    setDecisionError(null)
  }, [routeConversationId])

  // Leaving the playground cancels the run on the server.
  useEffect(() => () => controller.current?.abort(), [])

  const stop = useCallback(() => controller.current?.abort(), [])

  /** Back to an empty thread (New conversation), whatever the URL says yet. */
  const reset = useCallback(() => {
    controller.current?.abort()
    controller.current = null
    current.current = null
    setConversationId(null)
    setFresh(false)
    setLive([])
    setBusy(false)
    setDecisionError(null)
  }, [])

  const run = useCallback(
    async ({ message, files, model, deps, chatAs }: SendInput, answers?: Answer[]) => {
      if (controller.current) return
      const abort = new AbortController()
      controller.current = abort
      const key = `live-${++counter}`
      // The server stores the decisions in words as the user's message: the bubble says the same.
      const user = { text: answers ? answersSummary(answers) : message, attachments: files.map(localAttachment) }
      setLive((list) => [...list, { key, user, turn: emptyTurn(), answers }])
      setBusy(true)
      setDecisionError(null)
      const update = (change: (turn: Turn) => Turn) =>
        setLive((list) => list.map((item) => (item.key === key ? { ...item, turn: change(item.turn) } : item)))
      let id = current.current
      let streamed = false
      let messageId: string | undefined
      let userMessageId: string | undefined
      try {
        const decisions = answers ? decisionsOf(answers) : null
        const scope = id ? null : chatAs
        for await (const chunk of streamChat({ slug, message, files, conversationId: id, model, signal: abort.signal, decisions, deps, chatAs: scope })) {
          const now = performance.now()
          streamed = true
          update((turn) => applyChunk(turn, chunk, now))
          messageId = messageIdOf(chunk) ?? messageId
          userMessageId = userMessageIdOf(chunk) ?? userMessageId
          const started = conversationIdOf(chunk)
          if (started && !id) {
            id = started
            current.current = started
            setFresh(true)
            setConversationId(started)
            created.current(started)
          }
        }
        update((turn) => interruptTurn(turn, performance.now(), 'error', 'The stream ended before the run finished.'))
      } catch (error) {
        const now = performance.now()
        if (answers && !streamed) {
          // Decisions refused (or stopped, or never sent) change nothing: the card takes them back
          // and says why, and the thread is read again (they may have been decided elsewhere).
          setLive((list) => list.filter((item) => item.key !== key))
          if (!abort.signal.aborted) setDecisionError(error instanceof Error ? error.message : 'The decisions could not be sent.')
          if (id) invalidate(`conversation:${id}`)
        } else if (abort.signal.aborted) update((turn) => interruptTurn(turn, now, 'aborted'))
        else if (error instanceof ApiError) {
          update(() => requestFailed(error))
          // The conversation waits for decisions this tab did not know of: read them.
          if (error.code === 'approval_pending' && id) invalidate(`conversation:${id}`)
        } else update((turn) => interruptTurn(turn, now, 'error', error instanceof Error ? error.message : undefined))
      } finally {
        if (controller.current === abort) {
          controller.current = null
          setBusy(false)
        }
        invalidate('conversations')
        invalidate('privacy:') // the placeholders the turn added
      }
      // Hand the finished turn to the stored replay once the server has stored how it ended, then
      // drop the live copy. A request refused before any stream (a 413, say) was never stored, and
      // a turn the server cannot confirm keeps its live copy: its card stays.
      const stored = id
      if (stored && streamed && current.current === stored) {
        const settled = await storedTurnSettled(stored, messageId, userMessageId)
        if (!settled || current.current !== stored) return
        const loaded = await refresh(`conversation:${stored}`, () => api.conversation(stored))
        if (current.current === stored) {
          setFresh(false)
          // Earlier finished turns of this conversation are stored before this one: their live
          // copies go too (one left behind would cut the replay where it begins and hide every
          // stored turn after it). A request refused before any stream has no stored id and stays.
          if (loaded)
            setLive((list) => {
              const at = list.findIndex((item) => item.key === key)
              return list.filter((item, index) => index > at || (index < at && (item.turn.status === 'streaming' || !item.turn.metadata.user_message_id)))
            })
        }
      }
    },
    [slug],
  )

  const send = useCallback((input: SendInput) => run(input), [run])

  /** Resume the paused run with these answers (every call it waits on), on `model` (null: the default). */
  const decide = useCallback((answers: Answer[], model: string | null) => run({ message: '', files: [], model }, answers), [run])

  /** The conversation whose stored replay to show (none while a new one is being created). */
  const replayId = fresh ? null : conversationId
  return { conversationId, replayId, live, busy, send, decide, decisionError, stop, reset }
}
