// Who a new playground conversation chats as: a `type:id` label per scope axis, remembered per
// agent in localStorage so the next new conversation starts from the same tenant, person and subject.
import { useCallback, useState } from 'react'
import { SCOPE_AXES, type ScopeAxis } from '@/lib/api/types'

export type ChatAsLabels = Record<ScopeAxis, string>

export const NOBODY: ChatAsLabels = { tenant: '', actor: '', subject: '' }

export const chatAsKey = (slug: string) => `synapse.playground.chat-as.${slug}`

export function rememberedChatAs(slug: string): ChatAsLabels {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(chatAsKey(slug)) ?? 'null')
    if (!stored || typeof stored !== 'object') return NOBODY
    const labels = { ...NOBODY }
    for (const axis of SCOPE_AXES) {
      const value = (stored as Record<string, unknown>)[axis]
      if (typeof value === 'string') labels[axis] = value
    }
    return labels
  } catch {
    return NOBODY
  }
}

function remember(slug: string, labels: ChatAsLabels) {
  try {
    if (SCOPE_AXES.some((axis) => labels[axis].trim())) localStorage.setItem(chatAsKey(slug), JSON.stringify(labels))
    else localStorage.removeItem(chatAsKey(slug))
  } catch {
    // Not remembered: fine.
  }
}

/** The labels filled in, trimmed: the form fields a new conversation's first message carries. */
export function filledLabels(labels: ChatAsLabels): Partial<ChatAsLabels> {
  const filled: Partial<ChatAsLabels> = {}
  for (const axis of SCOPE_AXES) {
    const value = labels[axis].trim()
    if (value) filled[axis] = value
  }
  return filled
}

/** `org:acme · user:42`: the labels filled in, on one line. */
export const labelsLine = (labels: ChatAsLabels): string => Object.values(filledLabels(labels)).join(' · ')

export function useChatAs(slug: string): [ChatAsLabels, (labels: ChatAsLabels) => void] {
  const [labels, setLabels] = useState(() => rememberedChatAs(slug))
  const change = useCallback(
    (next: ChatAsLabels) => {
      setLabels(next)
      remember(slug, next)
    },
    [slug],
  )
  return [labels, change]
}
