// Read something again every second while it is still changing (a run under way).
import { useEffect } from 'react'

/** Calls `reload` every `ms` while `on`. */
export function usePolling(on: boolean, reload: () => void, ms = 1000): void {
  useEffect(() => {
    if (!on) return
    const timer = window.setInterval(reload, ms)
    return () => window.clearInterval(timer)
  }, [on, reload, ms])
}
