// Which of the shell's three layouts the window is wide enough for, from the same breakpoints as
// Tailwind's `md` (48rem) and `lg` (64rem): a phone gets the sidebar as a drawer, a tablet its
// icons, a desktop the whole sidebar (or its icons, when the user folds it).
import { useSyncExternalStore } from 'react'

export type Layout = 'phone' | 'tablet' | 'desktop'

const TABLET = '(min-width: 48rem)'
const DESKTOP = '(min-width: 64rem)'

/** True when the media query matches; without `matchMedia` (jsdom) the window counts as wide. */
function matches(query: string): boolean {
  return typeof window.matchMedia === 'function' ? window.matchMedia(query).matches : true
}

export function currentLayout(): Layout {
  if (matches(DESKTOP)) return 'desktop'
  return matches(TABLET) ? 'tablet' : 'phone'
}

function subscribe(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => {}
  const lists = [TABLET, DESKTOP].map((query) => window.matchMedia(query))
  for (const list of lists) list.addEventListener('change', onChange)
  return () => {
    for (const list of lists) list.removeEventListener('change', onChange)
  }
}

/** The layout now, re-rendering when the window crosses a breakpoint. */
export function useLayout(): Layout {
  return useSyncExternalStore(subscribe, currentLayout, () => 'desktop')
}
