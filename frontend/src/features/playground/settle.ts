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
 * server cannot say within about ten seconds or cannot be reached.
 */
export async function storedTurnSettled(conversationId: string, messageId: string | undefined, signal?: AbortSignal): Promise<boolean> {
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
    const message = thread.messages.find((m) => m.id === messageId)
    if (message && message.status !== 'streaming') return true
  }
  return false
}
