// The switch that lets agents search a source, or not: changed in place, its refusal reported.
import { useState } from 'react'
import { messageOf } from '@/components/common/States'
import { invalidate, updateResource } from '@/lib/resource'
import { ragApi, type Source } from './api'

/** Whether agents may search the source: switched in place, put back when the server refuses. */
export function ActiveToggle({ source, onError }: { source: Source; onError: (message: string) => void }) {
  const [busy, setBusy] = useState(false)
  const toggle = async (active: boolean) => {
    setBusy(true)
    try {
      const changed = await ragApi.update(source.slug, { active })
      updateResource<{ sources: Source[] }>('rag:sources', (data) => ({ sources: data.sources.map((one) => (one.slug === changed.slug ? changed : one)) }))
      invalidate(`rag:source:${source.slug}`)
    } catch (cause) {
      onError(messageOf(cause))
    } finally {
      setBusy(false)
    }
  }
  return (
    <input
      type="checkbox"
      className="size-4 accent-[var(--primary)]"
      aria-label={`Active: ${source.name}`}
      checked={source.active}
      disabled={busy}
      onChange={(event) => void toggle(event.target.checked)}
    />
  )
}
