// The frame of every page. A desktop docks the sidebar (folded or not, as the user left it); a
// tablet docks its icons and opens the whole of it as a drawer; a phone has a top bar whose menu
// button opens the drawer.
import { PanelLeftOpen } from '@/components/icons'
import { useEffect, useState } from 'react'
import { Outlet, useLocation } from 'react-router'
import { cn } from '@/lib/cn'
import { isTyping, mod, useShortcut } from '@/lib/shortcuts'
import { Logo } from './Logo'
import { Sidebar } from './Sidebar'
import { DRAWER_ID, SidebarDrawer } from './SidebarDrawer'
import { useLayout } from './useLayout'

const KEY = 'synapse.sidebar'

function readCollapsed(): boolean {
  try {
    return localStorage.getItem(KEY) === 'collapsed'
  } catch {
    return false
  }
}

function TopBar({ open, onOpen }: { open: boolean; onOpen: () => void }) {
  return (
    <header className="flex h-12 shrink-0 items-center gap-2 border-b bg-surface px-2" data-testid="top-bar">
      <button
        type="button"
        onClick={onOpen}
        aria-label="Open sidebar"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls={DRAWER_ID}
        className="flex size-9 cursor-pointer items-center justify-center rounded-md text-muted-foreground hover:bg-accent hover:text-foreground"
      >
        <PanelLeftOpen className="size-5" />
      </button>
      <Logo className="size-6" />
      <span className="font-semibold tracking-tight">Synapse</span>
    </header>
  )
}

export function Shell() {
  const layout = useLayout()
  const location = useLocation()
  const [collapsed, setCollapsed] = useState(readCollapsed)
  const [drawer, setDrawer] = useState(false)
  const toggle = () =>
    setCollapsed((was) => {
      try {
        localStorage.setItem(KEY, was ? 'open' : 'collapsed')
      } catch {
        // Not persisted: fine.
      }
      return !was
    })
  // The drawer belongs to one layout and one page: crossing a breakpoint or navigating closes it.
  useEffect(() => setDrawer(false), [layout, location.key])
  useShortcut((event) => {
    if (mod(event) && event.key.toLowerCase() === 'b' && !(isTyping(event.target) && !mod(event))) {
      if (layout === 'desktop') toggle()
      else setDrawer((open) => !open)
      return true
    }
    return false
  })
  return (
    <div className={cn('flex h-full overflow-hidden', layout === 'phone' && 'flex-col')}>
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-popover focus:px-3 focus:py-2">
        Skip to content
      </a>
      {layout === 'phone' && <TopBar open={drawer} onOpen={() => setDrawer(true)} />}
      {layout === 'tablet' && <Sidebar collapsed onToggle={() => setDrawer(true)} />}
      {layout === 'desktop' && <Sidebar collapsed={collapsed} onToggle={toggle} />}
      <SidebarDrawer open={drawer && layout !== 'desktop'} onClose={() => setDrawer(false)}>
        <Sidebar collapsed={false} onToggle={() => setDrawer(false)} drawer />
      </SidebarDrawer>
      <main id="main" className="flex h-full min-h-0 min-w-0 flex-1 flex-col overflow-hidden">
        <Outlet />
      </main>
    </div>
  )
}
