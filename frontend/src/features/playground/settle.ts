// A turn that ended on screen (finished, stopped, failed, cut off) is final in the store only once
// the server has written how it ended: a stopped turn is stored as interrupted a moment after the
// client let go. The playground keeps its live copy until then, so what is on screen is what a
// reload shows, never the half-written row in between.
import { api } from '@/lib/api/client'

const DELAYS_MS = [0, 100, 200, 300, 500, 800, 1200, 1600, 2000, 2500]

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Wait until the stored answer `messageId` of conversation `conversationId` is no longer
 * streaming; true once it is (or when the turn has no stored answer to wait for), false when the
 * server cannot say within about ten seconds or cannot be reached. A turn that failed is stored as
 * an error row of its own id after its user message `userMessageId`: that row settles it too.
 */
export async function storedTurnSettled(
  conversationId: string,
  messageId: string | undefined,
  userMessageId?: string,
  signal?: AbortSignal,
): Promise<boolean> {
  if (!messageId) return true
  for (const delay of DELAYS_MS) {
    if (delay) await sleep(delay)
    if (signal?.aborted) return false
    let thread: Awaited<ReturnType<typeof api.conversation>>
    try {
      thread = await api.conversation(conversationId)
    } catch {
      return false
    }
    const message = thread.messages.find((m) => m.id === messageId) ?? answerAfter(thread.messages, userMessageId)
    if (message && message.status !== 'streaming') return true
  }
  return false
}

/** The stored answer or error row of user message `userMessageId` (before the next user message). */
function answerAfter<M extends { id: string; role: string }>(messages: M[], userMessageId: string | undefined): M | undefined {
  if (!userMessageId) return undefined
  const index = messages.findIndex((m) => m.id === userMessageId)
  if (index === -1) return undefined
  for (const message of messages.slice(index + 1)) {
    if (message.role === 'user') return undefined
    if (message.role === 'assistant' || message.role === 'error') return message
  }
  return undefined
}
