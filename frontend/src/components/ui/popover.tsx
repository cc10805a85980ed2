// Popovers on the platform's Popover API: the content sits in the top layer (never clipped by a
// scroll container), closes on Esc and on a click outside (light dismiss), and the trigger is its
// declared invoker (`popovertarget`), so clicking it again closes rather than reopens.
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type ComponentProps,
  type ReactNode,
  type RefObject,
} from 'react'
import { cn } from '@/lib/cn'

interface PopoverState {
  id: string
  open: boolean
  setOpen: (open: boolean) => void
  trigger: RefObject<HTMLButtonElement>
  content: RefObject<HTMLDivElement>
}

const PopoverContext = createContext<PopoverState | null>(null)

export function usePopover(): PopoverState {
  const state = useContext(PopoverContext)
  if (!state) throw new Error('Popover parts must be inside <Popover>')
  return state
}

const supported = typeof HTMLElement !== 'undefined' && 'showPopover' in HTMLElement.prototype

/** Popover API attributes, spelled as HTML has them (React 18 passes lowercase names through). */
export function popoverAttributes(attributes: { popover?: 'auto' | 'manual'; popovertarget?: string; popovertargetaction?: string }) {
  return attributes as Record<string, string>
}

export function Popover({ children, onOpenChange }: { children: ReactNode; onOpenChange?: (open: boolean) => void }) {
  const [open, setOpenState] = useState(false)
  const trigger = useRef<HTMLButtonElement>(null)
  const content = useRef<HTMLDivElement>(null)
  const id = useId()
  const changed = useRef(onOpenChange)
  changed.current = onOpenChange
  const setOpen = useCallback((next: boolean) => {
    setOpenState((was) => {
      if (was !== next) changed.current?.(next)
      return next
    })
  }, [])
  return <PopoverContext.Provider value={{ id, open, setOpen, trigger, content }}>{children}</PopoverContext.Provider>
}

export function PopoverTrigger({ className, onClick, action = 'toggle', ...props }: ComponentProps<'button'> & { action?: 'toggle' | 'show' }) {
  const { id, open, setOpen, trigger } = usePopover()
  return (
    <button
      ref={trigger}
      type="button"
      aria-expanded={open}
      aria-controls={id}
      data-state={open ? 'open' : 'closed'}
      // The browser toggles the popover; without the API (jsdom) the click does it.
      {...(supported ? popoverAttributes({ popovertarget: id, popovertargetaction: action }) : {})}
      onClick={(event) => {
        onClick?.(event)
        if (!supported) setOpen(action === 'show' ? true : !open)
      }}
      className={className}
      {...props}
    />
  )
}

type Side = 'top' | 'bottom'
type Align = 'start' | 'end' | 'center'
const GAP = 4

/** Where the content goes: below (or above) the trigger, flipped when it would not fit. */
export function position(anchor: DOMRect, box: { width: number; height: number }, side: Side, align: Align, viewport: { width: number; height: number }) {
  const below = anchor.bottom + GAP + box.height <= viewport.height
  const above = anchor.top - GAP - box.height >= 0
  const placeBelow = side === 'bottom' ? below || !above : !(above || !below)
  const top = placeBelow ? anchor.bottom + GAP : anchor.top - GAP - box.height
  const left = align === 'start' ? anchor.left : align === 'end' ? anchor.right - box.width : anchor.left + anchor.width / 2 - box.width / 2
  return {
    top: Math.max(GAP, Math.min(top, viewport.height - box.height - GAP)),
    left: Math.max(GAP, Math.min(left, viewport.width - box.width - GAP)),
  }
}

const FOCUSABLE = 'input:not([disabled]), button:not([disabled]), [tabindex="-1"][role^="menuitem"]:not([aria-disabled="true"]), a[href], [tabindex="0"]'

export function PopoverContent({
  className,
  align = 'start',
  side = 'bottom',
  autoFocus = true,
  children,
  onKeyDown,
  role,
  ...props
}: Omit<ComponentProps<'div'>, 'popover'> & { align?: Align; side?: Side; autoFocus?: boolean }) {
  const { id, open, setOpen, trigger, content } = usePopover()

  // Closing from code (a menu item chosen) hides the top-layer element too.
  useEffect(() => {
    const element = content.current
    if (!supported || !element) return
    if (!open && element.matches(':popover-open')) element.hidePopover()
  }, [open, content])

  const place = useCallback(() => {
    const element = content.current
    const anchor = trigger.current
    if (!element || !anchor || !supported) return
    const at = position(anchor.getBoundingClientRect(), element.getBoundingClientRect(), side, align, { width: window.innerWidth, height: window.innerHeight })
    element.style.top = `${at.top}px`
    element.style.left = `${at.left}px`
    element.style.visibility = 'visible'
  }, [content, trigger, side, align])

  const focusFirst = useCallback(() => {
    const element = content.current
    if (element?.contains(document.activeElement)) return
    const preferred = element?.querySelector<HTMLElement>('[aria-checked="true"]') ?? element?.querySelector<HTMLElement>(FOCUSABLE)
    preferred?.focus()
  }, [content])

  useLayoutEffect(() => {
    if (!open) return
    place()
    if (autoFocus) focusFirst()
    window.addEventListener('resize', place)
    window.addEventListener('scroll', place, true)
    return () => {
      window.removeEventListener('resize', place)
      window.removeEventListener('scroll', place, true)
    }
  }, [open, place, autoFocus, focusFirst])

  // Follow the browser's own opening and closing (invoker clicks, Esc, light dismiss).
  // `beforetoggle` fires synchronously for each change (`toggle` events are coalesced). A close
  // and a quick reopen can net out to no state change, so opening also places and focuses on the
  // next frame, whatever React renders.
  useEffect(() => {
    const element = content.current
    if (!element) return
    const onToggle = (event: Event) => {
      const opening = (event as ToggleEvent).newState === 'open'
      setOpen(opening)
      if (opening)
        requestAnimationFrame(() => {
          place()
          if (autoFocus) focusFirst()
        })
    }
    element.addEventListener('beforetoggle', onToggle)
    return () => element.removeEventListener('beforetoggle', onToggle)
  }, [content, setOpen, place, autoFocus, focusFirst])

  // Focus goes back to the trigger when the popover closes with focus inside it.
  useEffect(() => {
    if (open) return
    const element = content.current
    if (element) element.style.visibility = ''
    if (element && (element.contains(document.activeElement) || document.activeElement === document.body)) {
      if (document.activeElement !== document.body) trigger.current?.focus()
    }
  }, [open, content, trigger])

  return (
    <div
      ref={content}
      id={id}
      {...popoverAttributes({ popover: 'auto' })}
      role={role}
      data-state={open ? 'open' : 'closed'}
      onKeyDown={(event) => {
        onKeyDown?.(event)
        if (event.key === 'Escape' && !supported) setOpen(false)
        if (event.key === 'Tab' && role === 'menu') setOpen(false)
      }}
      className={cn(
        // Invisible until placed beside its trigger, so it never flashes at the corner.
        'invisible fixed m-0 rounded-lg border bg-popover p-3 text-popover-foreground shadow-xl outline-none',
        open ? 'animate-in' : 'hidden',
        className,
      )}
      {...props}
    >
      {open && children}
    </div>
  )
}
