// The trace reads, each under one cache key (`traces:`…): a page of roots, a tree, a model call,
// and the root of a playground turn; and the clock the list's "5 min ago" is read against.
import { useEffect, useState } from 'react'
import { useResource } from '@/lib/resource'
import { tracesApi } from './api'

export const useRootPage = (query: URLSearchParams) => {
  const qs = query.toString()
  return useResource(`traces:roots?${qs}`, () => tracesApi.roots(new URLSearchParams(qs)))
}

export const useTree = (runId: string | null) => useResource(runId ? `traces:tree:${runId}` : null, () => tracesApi.tree(runId ?? ''))

export const useModelCall = (id: string | null) => useResource(id ? `traces:call:${id}` : null, () => tracesApi.call(id ?? ''))

export const useMessageTrace = (messageId: string | null) =>
  useResource(messageId ? `traces:message:${messageId}` : null, () => tracesApi.ofMessage(messageId ?? ''))

/** The time now, refreshed every `ms`. */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms)
    return () => window.clearInterval(timer)
  }, [ms])
  return now
}
