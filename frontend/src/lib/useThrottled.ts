import { useEffect, useRef, useState } from 'react'

/**
 * `value`, updated at most every `ms` milliseconds (the latest value always lands); `ms <= 0`
 * passes it straight through. A stream of small deltas then costs one render per interval.
 */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value)
  const last = useRef(0)
  useEffect(() => {
    if (ms <= 0) {
      setShown(value)
      return
    }
    const wait = last.current + ms - performance.now()
    const land = () => {
      last.current = performance.now()
      setShown(value)
    }
    if (wait <= 0) {
      land()
      return
    }
    const timer = setTimeout(land, wait)
    return () => clearTimeout(timer)
  }, [value, ms])
  return ms <= 0 ? value : shown
}
