import { useEffect, useRef } from 'react'

/** True when the key press happens inside something that takes text. */
export function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null
  if (!element) return false
  return element.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName)
}

/** Run `handler` on a global keydown; it returns true when it handled the key. */
export function useShortcut(handler: (event: KeyboardEvent) => boolean): void {
  const ref = useRef(handler)
  ref.current = handler
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (!event.defaultPrevented && ref.current(event)) event.preventDefault()
    }
    window.addEventListener('keydown', listener)
    return () => window.removeEventListener('keydown', listener)
  }, [])
}

export const mod = (event: KeyboardEvent): boolean => event.metaKey || event.ctrlKey
