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

/**
 * The indexing progress of `source`, read every second while it indexes (and, after `queued()`,
 * until its run starts). When a run ends, the source, its files and its documents are read again.
 */
export function useIndexing(source: Source) {
  const slug = source.slug
  const [waiting, setWaiting] = useState<{ since: string | null; polls: number } | null>(null)
  const progress = useResource<Progress>(`rag:progress:${slug}`, () => ragApi.progress(slug))
  const status = progress.data?.status ?? source.status
  const lastIndexed = progress.data ? progress.data.last_indexed_at : source.last_indexed_at
  const started = waiting !== null && (status === 'indexing' || lastIndexed !== waiting.since)
  useEffect(() => {
    if (started) setWaiting(null)
  }, [started])
  const live = status === 'indexing' || (waiting !== null && !started && waiting.polls < QUEUED_POLLS)
  const reload = progress.reload
  const poll = useCallback(() => {
    setWaiting((current) => (current ? { ...current, polls: current.polls + 1 } : current))
    reload()
  }, [reload])
  usePolling(live, poll)
  const previous = useRef({ status, lastIndexed })
  useEffect(() => {
    const before = previous.current
    if ((before.status === 'indexing' && status !== 'indexing') || (status !== 'indexing' && before.lastIndexed !== lastIndexed)) {
      invalidate(`rag:source:${slug}`)
      invalidate(`rag:files:${slug}`)
      invalidate(`rag:documents:${slug}`)
      invalidate('rag:sources')
    }
    previous.current = { status, lastIndexed }
  }, [status, lastIndexed, slug])
  return {
    progress: progress.data,
    status,
    /** A run was just asked for: watch for it to start. */
    queued: () => {
      setWaiting({ since: lastIndexed, polls: 0 })
      reload()
    },
    /** Asked for and not started yet (a worker picks it up). */
    waiting: waiting !== null && !started,
  }
}
