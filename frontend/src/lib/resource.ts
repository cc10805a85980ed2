// A small cache for API reads: one fetch per key, shared by every component that shows it,
// refetched when invalidated (after a rename, a delete or a finished chat turn).
import { useCallback, useEffect, useSyncExternalStore } from 'react'

export interface ResourceState<T> {
  data: T | undefined
  error: unknown
  loading: boolean
}

interface Entry {
  state: ResourceState<unknown>
  fetcher: () => Promise<unknown>
  listeners: Set<() => void>
  inflight: Promise<void> | null
  stale: boolean
}

const entries = new Map<string, Entry>()
const IDLE: ResourceState<never> = { data: undefined, error: undefined, loading: false }

function entryFor(key: string, fetcher: () => Promise<unknown>): Entry {
  let entry = entries.get(key)
  if (!entry) {
    entry = { state: { data: undefined, error: undefined, loading: true }, fetcher, listeners: new Set(), inflight: null, stale: true }
    entries.set(key, entry)
  }
  entry.fetcher = fetcher
  return entry
}

function publish(entry: Entry, state: ResourceState<unknown>): void {
  entry.state = state
  for (const listener of entry.listeners) listener()
}

function load(entry: Entry): Promise<void> {
  if (entry.inflight) return entry.inflight
  entry.stale = false
  if (!entry.state.loading) publish(entry, { ...entry.state, loading: true })
  const run = entry
    .fetcher()
    .then(
      (data) => publish(entry, { data, error: undefined, loading: false }),
      (error: unknown) => publish(entry, { data: entry.state.data, error, loading: false }),
    )
    .finally(() => {
      entry.inflight = null
      if (entry.stale && entry.listeners.size) void load(entry)
    })
  entry.inflight = run
  return run
}

/** Read `key` through `fetcher`; `null` reads nothing. Keeps showing old data while refetching. */
export function useResource<T>(key: string | null, fetcher: () => Promise<T>): ResourceState<T> & { reload: () => void } {
  const subscribe = useCallback(
    (listener: () => void) => {
      if (key === null) return () => undefined
      const entry = entryFor(key, fetcher)
      entry.listeners.add(listener)
      return () => entry.listeners.delete(listener)
    },
    // The fetcher is recreated each render; the key names what it fetches.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key],
  )
  const getSnapshot = () => (key === null ? IDLE : entryFor(key, fetcher).state)
  const state = useSyncExternalStore(subscribe, getSnapshot, getSnapshot) as ResourceState<T>
  useEffect(() => {
    if (key === null) return
    const entry = entryFor(key, fetcher)
    if (entry.stale) void load(entry)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  const reload = useCallback(() => {
    if (key !== null) invalidate(key)
  }, [key])
  return { ...state, reload }
}

/** Mark every key starting with `prefix` stale; those on screen refetch now, others when next shown. */
export function invalidate(prefix: string): void {
  for (const [key, entry] of entries) {
    if (!key.startsWith(prefix)) continue
    entry.stale = true
    if (entry.listeners.size) void load(entry)
  }
}

/** Put data in the cache directly (an optimistic rename, say). */
export function updateResource<T>(key: string, update: (data: T) => T): void {
  const entry = entries.get(key)
  if (entry?.state.data !== undefined) publish(entry, { ...entry.state, data: update(entry.state.data as T) })
}

/** Forget everything (tests). */
export function resetResources(): void {
  entries.clear()
}

/** Refetch `key` now (on screen or not); resolves true once fresh data is in, false on an error. */
export async function refresh<T>(key: string, fetcher: () => Promise<T>): Promise<boolean> {
  const entry = entryFor(key, fetcher)
  if (entry.inflight) await entry.inflight
  entry.stale = true
  await load(entry)
  return entry.state.error === undefined
}
