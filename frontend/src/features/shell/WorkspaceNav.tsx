// The sidebar's areas, as `GET /api/extensions` lists them: Synapse's own (each with its icon) and
// those plugins add (`register_dashboard_areas`), in the server's order. Until the answer comes,
// or when it cannot be read, the built-in areas show so the dashboard stays usable.
import { Brain, CalendarClock, Database, FlaskConical, GitFork, History, LayoutGrid, LibraryBig, Plug, ScrollText, Wallet, Workflow } from '@/components/icons'
import type { ReactNode } from 'react'
import type { DashboardArea } from '@/lib/api/types'
import { apiUrl } from '@/lib/base'
import { useExtensions } from '@/lib/queries'

/** The built-in areas' icons, by the name the server gives each area. */
const ICONS: Record<string, ReactNode> = {
  agents: <LayoutGrid />,
  history: <History />,
  registry: <Database />,
  spend: <Wallet />,
  tasks: <CalendarClock />,
  traces: <GitFork />,
  rules: <ScrollText />,
  memory: <Brain />,
  evals: <FlaskConical />,
  workflows: <Workflow />,
  retrieval: <LibraryBig />,
}

/** The built-in areas, shown before the extensions answer comes. */
export const BUILT_IN_AREAS: DashboardArea[] = [
  { name: 'agents', path: '/', label: 'Agents' },
  { name: 'history', path: '/history', label: 'History' },
  { name: 'registry', path: '/registry', label: 'Registry' },
  { name: 'spend', path: '/spend', label: 'Spend' },
  { name: 'tasks', path: '/tasks', label: 'Tasks' },
  { name: 'traces', path: '/traces', label: 'Traces' },
  { name: 'rules', path: '/rules', label: 'Rules' },
]

export interface NavArea {
  name: string
  label: string
  icon: ReactNode
  /** A dashboard route (a built-in area), opened in place. */
  to?: string
  /** A page a plugin serves, opened as a link. */
  href?: string
  end?: boolean
}

/** The nav entries for `areas`: a built-in area opens its route, a plugin's area is a link. */
export function navAreas(areas: DashboardArea[]): NavArea[] {
  return areas.map((area) => {
    const icon = ICONS[area.name]
    if (icon === undefined) return { name: area.name, label: area.label, icon: <Plug />, href: apiUrl(area.path) }
    return { name: area.name, label: area.label, icon, to: area.path, end: area.path === '/' }
  })
}

/** The areas to show now: the server's, or the built-in ones until it answers. */
export function useNavAreas(): NavArea[] {
  const { data } = useExtensions()
  return navAreas(data?.areas ?? BUILT_IN_AREAS)
}
