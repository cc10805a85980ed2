import { useState } from 'react'
import { Outlet } from 'react-router'
import { isTyping, mod, useShortcut } from '@/lib/shortcuts'
import { Sidebar } from './Sidebar'

const KEY = 'synapse.sidebar'

function readCollapsed(): boolean {
  try {
    return localStorage.getItem(KEY) === 'collapsed'
  } catch {
    return false
  }
}

export function Shell() {
  const [collapsed, setCollapsed] = useState(readCollapsed)
  const toggle = () =>
    setCollapsed((was) => {
      try {
        localStorage.setItem(KEY, was ? 'open' : 'collapsed')
      } catch {
        // Not persisted: fine.
      }
      return !was
    })
  useShortcut((event) => {
    if (mod(event) && event.key.toLowerCase() === 'b' && !(isTyping(event.target) && !mod(event))) {
      toggle()
      return true
    }
    return false
  })
  return (
    <div className="flex h-full overflow-hidden">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-popover focus:px-3 focus:py-2">
        Skip to content
      </a>
      <Sidebar collapsed={collapsed} onToggle={toggle} />
      <main id="main" className="flex h-full min-w-0 flex-1 flex-col overflow-hidden">
        <Outlet />
      </main>
    </div>
  )
}
