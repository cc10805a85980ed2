// The live side of a playground: sends messages, applies stream chunks as they arrive, aborts
// the run on navigation, a new conversation or Stop, and hands finished turns over to the replay.
import { useCallback, useEffect, useRef, useState } from 'react'
import { api, ApiError } from '@/lib/api/client'
import { streamChat } from '@/lib/stream/chat'
import type { UIChunk } from '@/lib/stream/chunks'
import { applyChunk, emptyTurn, interruptTurn, type Turn } from '@/lib/stream/turn'
import type { AttachmentView } from '@/lib/thread'
import { invalidate, refresh } from '@/lib/resource'
import { storedTurnSettled } from './settle'

export interface LiveExchange {
  key: string
  user: { text: string; attachments: AttachmentView[] }
  turn: Turn
}

export interface SendInput {
  message: string
  files: File[]
  model: string | null
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
  }, [])

  const send = useCallback(
    async ({ message, files, model }: SendInput) => {
      if (controller.current) return
      const abort = new AbortController()
      controller.current = abort
      const key = `live-${++counter}`
      setLive((list) => [...list, { key, user: { text: message, attachments: files.map(localAttachment) }, turn: emptyTurn() }])
      setBusy(true)
      const update = (change: (turn: Turn) => Turn) =>
        setLive((list) => list.map((item) => (item.key === key ? { ...item, turn: change(item.turn) } : item)))
      let id = current.current
      let streamed = false
      let messageId: string | undefined
      try {
        for await (const chunk of streamChat({ slug, message, files, conversationId: id, model, signal: abort.signal })) {
          const now = performance.now()
          streamed = true
          update((turn) => applyChunk(turn, chunk, now))
          messageId = messageIdOf(chunk) ?? messageId
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
        if (abort.signal.aborted) update((turn) => interruptTurn(turn, now, 'aborted'))
        else if (error instanceof ApiError) update(() => requestFailed(error))
        else update((turn) => interruptTurn(turn, now, 'error', error instanceof Error ? error.message : undefined))
      } finally {
        if (controller.current === abort) {
          controller.current = null
          setBusy(false)
        }
        invalidate('conversations')
      }
      // Hand the finished turn to the stored replay once the server has stored how it ended, then
      // drop the live copy. A request refused before any stream (a 413, say) was never stored, and
      // a turn the server cannot confirm keeps its live copy: its card stays.
      const stored = id
      if (stored && streamed && current.current === stored) {
        const settled = await storedTurnSettled(stored, messageId)
        if (!settled || current.current !== stored) return
        const loaded = await refresh(`conversation:${stored}`, () => api.conversation(stored))
        if (current.current === stored) {
          setFresh(false)
          if (loaded) setLive((list) => list.filter((item) => item.key !== key))
        }
      }
    },
    [slug],
  )

  /** The conversation whose stored replay to show (none while a new one is being created). */
  const replayId = fresh ? null : conversationId
  return { conversationId, replayId, live, busy, send, stop, reset }
}
