// Edit and re-run: fork the conversation just before a user message, open the fork, and send the
// edited message there with the files the original carried. The original is never written to.
import { useCallback, useEffect, useRef, useState } from 'react'
import { api, ApiError, errorFrom } from '@/lib/api/client'
import { invalidate } from '@/lib/resource'
import type { AttachmentView } from '@/lib/thread'
import { messageOf } from '@/components/common/States'
import type { RerunInput } from './RerunEditor'
import type { SendInput } from './useChatSession'

interface Queued extends SendInput {
  conversationId: string
}

/** A stored attachment read back as a File (its name and media type kept), to send again. */
export async function fileOf(attachment: AttachmentView): Promise<File> {
  if (!attachment.url) throw new Error(`${attachment.name} cannot be read back.`)
  let response: Response
  try {
    response = await fetch(attachment.url)
  } catch {
    throw new ApiError(0, 'network', `${attachment.name} could not be read back: Synapse is not answering.`)
  }
  if (!response.ok) throw await errorFrom(response)
  // The bytes, not a Blob: a File takes either, but only bytes cross between a fetch and a File
  // that come from different implementations (as under test).
  const bytes = await response.arrayBuffer()
  return new File([bytes], attachment.name, { type: attachment.mediaType })
}

export function useRerun({
  conversationId,
  send,
  open,
}: {
  /** The conversation on screen. */
  conversationId: string | null
  /** Send a message in the conversation on screen, on the model chosen (null: the default). */
  send: (input: SendInput) => void
  /** Show another conversation of this agent. */
  open: (id: string) => void
}) {
  const [editing, setEditing] = useState<string | null>(null)
  const [working, setWorking] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const queued = useRef<Queued | null>(null)
  const sendRef = useRef(send)
  sendRef.current = send

  // Another conversation on screen: close the editor; if it is the fork just made, send there.
  useEffect(() => {
    setEditing(null)
    setError(null)
    const next = queued.current
    if (!next || next.conversationId !== conversationId) return
    queued.current = null
    sendRef.current({ message: next.message, files: next.files, model: next.model })
  }, [conversationId])

  const edit = useCallback((id: string | null) => {
    setEditing(id)
    setError(null)
  }, [])

  const rerun = useCallback(
    async ({ messageId, message, attachments, model }: RerunInput) => {
      const source = conversationId
      if (!source) return
      setWorking(true)
      setError(null)
      try {
        const files = await Promise.all(attachments.map(fileOf))
        const fork = await api.fork(source, messageId)
        invalidate('conversations')
        invalidate(`conversation:${source}`)
        queued.current = { conversationId: fork.id, message, files, model }
        open(fork.id)
      } catch (cause) {
        setError(messageOf(cause))
      } finally {
        setWorking(false)
      }
    },
    [conversationId, open],
  )

  return { editing, edit, working, error, rerun }
}
