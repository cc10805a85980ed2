// The Tasks page's reads, each under one cache key (`tasks:`…, invalidated after any change), and
// the polling that keeps a queued or running task live on screen.
import { useEffect, useState } from 'react'
import { useResource } from '@/lib/resource'
import { tasksApi } from './api'

export const useStanding = () => useResource('tasks:standing', tasksApi.standing)

export const useTaskPage = (query: URLSearchParams) => {
  const qs = query.toString()
  return useResource(`tasks:list?${qs}`, () => tasksApi.tasks(new URLSearchParams(qs)))
}

export const useTask = (id: string | null) => useResource(id ? `tasks:task:${id}` : null, () => tasksApi.task(id ?? ''))

/** How often a live (queued or running) task is read again. */
export const POLL_MS = 1000

/** Call `reload` every `ms` while `active`; nothing once it is not. */
export function usePolling(active: boolean, reload: () => void, ms = POLL_MS): void {
  useEffect(() => {
    if (!active) return
    const timer = window.setInterval(reload, ms)
    return () => window.clearInterval(timer)
  }, [active, reload, ms])
}

/** The time now, refreshed every `ms` (for "in 5 min" and a running task's duration). */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms)
    return () => window.clearInterval(timer)
  }, [ms])
  return now
}
