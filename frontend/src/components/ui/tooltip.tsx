// Hover and focus hints in the top layer (the Popover API), so no scroll container clips them.
// The hint is described-by its trigger and leaves on Esc, pointer leave or blur.
import { popoverAttributes } from './popover'
import { cloneElement, isValidElement, useEffect, useId, useLayoutEffect, useRef, useState, type ReactElement, type ReactNode } from 'react'

type Side = 'top' | 'right' | 'bottom' | 'left'
const GAP = 6
const DELAY = 250

/** Place `tip` beside `anchor` on `side`, flipping when it would leave the viewport. */
export function place(anchor: DOMRect, tip: { width: number; height: number }, side: Side, viewport: { width: number; height: number }) {
  const fits = {
    top: anchor.top - tip.height - GAP >= 0,
    bottom: anchor.bottom + tip.height + GAP <= viewport.height,
    left: anchor.left - tip.width - GAP >= 0,
    right: anchor.right + tip.width + GAP <= viewport.width,
  }
  const opposite: Record<Side, Side> = { top: 'bottom', bottom: 'top', left: 'right', right: 'left' }
  const chosen = fits[side] || !fits[opposite[side]] ? side : opposite[side]
  let top = chosen === 'top' ? anchor.top - tip.height - GAP : chosen === 'bottom' ? anchor.bottom + GAP : anchor.top + anchor.height / 2 - tip.height / 2
  let left = chosen === 'left' ? anchor.left - tip.width - GAP : chosen === 'right' ? anchor.right + GAP : anchor.left + anchor.width / 2 - tip.width / 2
  left = Math.max(GAP, Math.min(left, viewport.width - tip.width - GAP))
  top = Math.max(GAP, Math.min(top, viewport.height - tip.height - GAP))
  return { top, left, side: chosen }
}

export function Tooltip({ content, children, side = 'top' }: { content: ReactNode; children: ReactElement; side?: Side }) {
  const [open, setOpen] = useState(false)
  const anchor = useRef<HTMLSpanElement>(null)
  const tip = useRef<HTMLDivElement>(null)
  const timer = useRef<number | undefined>(undefined)
  const id = useId()

  const show = (delay: number) => {
    window.clearTimeout(timer.current)
    timer.current = window.setTimeout(() => setOpen(true), delay)
  }
  const hide = () => {
    window.clearTimeout(timer.current)
    setOpen(false)
  }
  useEffect(() => () => window.clearTimeout(timer.current), [])

  useLayoutEffect(() => {
    const element = tip.current
    const trigger = anchor.current?.firstElementChild ?? anchor.current
    if (!open || !element || !trigger) return
    element.showPopover?.()
    const at = place(trigger.getBoundingClientRect(), element.getBoundingClientRect(), side, { width: window.innerWidth, height: window.innerHeight })
    element.style.top = `${at.top}px`
    element.style.left = `${at.left}px`
    return () => element.hidePopover?.()
  }, [open, side])

  const child = isValidElement<Record<string, unknown>>(children) ? cloneElement(children, { 'aria-describedby': open ? id : undefined }) : children
  return (
    <span
      ref={anchor}
      className="contents"
      onPointerEnter={(event) => event.pointerType === 'mouse' && show(DELAY)}
      onPointerLeave={hide}
      onFocus={() => show(0)}
      onBlur={hide}
      onKeyDown={(event) => event.key === 'Escape' && open && (event.stopPropagation(), hide())}
    >
      {child}
      {open && (
        <div
          ref={tip}
          id={id}
          role="tooltip"
          {...popoverAttributes({ popover: 'manual' })}
          className="pointer-events-none fixed m-0 max-w-xs rounded-md border bg-popover px-2.5 py-1.5 text-xs text-popover-foreground shadow-lg animate-in"
        >
          {content}
        </div>
      )}
    </span>
  )
}
