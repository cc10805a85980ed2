// The Sources pages' reads, each under one cache key (`rag:`…, invalidated after a change). The list
// is read again every second while a source indexes; one source's progress likewise.
import { useCallback, useEffect, useRef, useState } from 'react'
import { usePolling } from '@/lib/polling'
import { invalidate, useResource } from '@/lib/resource'
import { ragApi, type Progress, type Source } from './api'

export const useSources = () => {
  const sources = useResource('rag:sources', ragApi.sources)
  usePolling(sources.data?.sources.some((source) => source.status === 'indexing') ?? false, sources.reload)
  return sources
}

export const useSource = (slug: string) => useResource(`rag:source:${slug}`, () => ragApi.source(slug))
export const useFailedFiles = (slug: string) => useResource(`rag:files:${slug}:failed`, () => ragApi.files(slug, 'failed'))

export const useDocuments = (slug: string, offset: number, limit: number, file = '') =>
  useResource(`rag:documents:${slug}:${file}:${offset}:${limit}`, () => ragApi.documents(slug, { file: file || undefined, offset, limit }))

/** How many progress reads a queued run waits for its worker before the page stops asking. */
export const QUEUED_POLLS = 60

/** What a run asked for at `POST .../index` left as it was, and the progress read before it. */
interface Asked {
  seen: Progress | undefined
  status: Source['status']
  lastIndexed: string | null
  lastError: string | null
  polls: number
}

/** Read again what an ended run changed: the source, its files and chunks, and the list. */
function rereadAfterRun(slug: string): void {
  invalidate(`rag:source:${slug}`)
  invalidate(`rag:files:${slug}`)
  invalidate(`rag:documents:${slug}`)
  invalidate('rag:sources')
}

/**
 * The indexing progress of `source`, read every second while it indexes, and after `queued()`
 * until a read shows the run under way or ended (a queued run waits for a worker). When a run
 * ends, the source, its files and its documents are read again.
 */
export function useIndexing(source: Source) {
  const slug = source.slug
  const [asked, setAsked] = useState<Asked | null>(null)
  const progress = useResource<Progress>(`rag:progress:${slug}`, () => ragApi.progress(slug))
  const data = progress.data
  const status = data?.status ?? source.status
  const lastIndexed = data ? data.last_indexed_at : source.last_indexed_at
  // Only a read made after the run was asked for says whether it started.
  const fresh = asked !== null && data !== undefined && data !== asked.seen ? data : null
  const started =
    fresh !== null &&
    (fresh.status === 'indexing' || fresh.status !== asked?.status || fresh.last_indexed_at !== asked.lastIndexed || fresh.last_error !== asked.lastError)
  useEffect(() => {
    if (!started) return
    setAsked(null)
    if (status !== 'indexing') rereadAfterRun(slug)
  }, [started, status, slug])
  const live = status === 'indexing' || (asked !== null && !started && asked.polls < QUEUED_POLLS)
  const reload = progress.reload
  const poll = useCallback(() => {
    setAsked((current) => (current ? { ...current, polls: current.polls + 1 } : current))
    reload()
  }, [reload])
  usePolling(live, poll)
  const previous = useRef({ status, lastIndexed })
  useEffect(() => {
    const before = previous.current
    if ((before.status === 'indexing' && status !== 'indexing') || (status !== 'indexing' && before.lastIndexed !== lastIndexed)) rereadAfterRun(slug)
    previous.current = { status, lastIndexed }
  }, [status, lastIndexed, slug])
  return {
    progress: data,
    status,
    /** A run was just asked for (`at`: the source as the request left it): watch for it to start. */
    queued: (at: Source) => {
      setAsked({ seen: data, status: at.status, lastIndexed: at.last_indexed_at, lastError: at.last_error, polls: 0 })
      reload()
    },
    /** Asked for and not seen under way yet: a worker picks it up. */
    waiting: asked !== null && !started,
  }
}
