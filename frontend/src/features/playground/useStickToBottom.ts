// Follow the end of the thread while the reader is at the end; leave them alone once they
// scroll up to read, and offer a way back.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react'

const SLACK = 48

export function useStickToBottom(scroller: RefObject<HTMLElement | null>, content: RefObject<HTMLElement | null>) {
  const stick = useRef(true)
  const [atBottom, setAtBottom] = useState(true)

  const scrollToBottom = useCallback(() => {
    const element = scroller.current
    if (!element) return
    stick.current = true
    setAtBottom(true)
    element.scrollTop = element.scrollHeight
  }, [scroller])

  const onScroll = useCallback(() => {
    const element = scroller.current
    if (!element) return
    const bottom = element.scrollHeight - element.scrollTop - element.clientHeight <= SLACK
    stick.current = bottom
    setAtBottom(bottom)
  }, [scroller])

  useEffect(() => {
    const element = content.current
    if (!element || typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(() => {
      if (stick.current && scroller.current) scroller.current.scrollTop = scroller.current.scrollHeight
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [content, scroller])

  return { atBottom, onScroll, scrollToBottom }
}
