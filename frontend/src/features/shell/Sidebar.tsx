// The app shell's left column: the areas GET /api/extensions lists, recent conversations, agents,
// version and theme.
// Docked beside the content, or inside the drawer on a narrow window (see Shell).
import { Bot, PanelLeftClose, PanelLeftOpen } from '@/components/icons'
import type { ReactNode } from 'react'
import { NavLink } from 'react-router'
import { cn } from '@/lib/cn'
import { Tooltip } from '@/components/ui/tooltip'
import { useAgents, useHealth } from '@/lib/queries'
import { agentPath } from '@/features/conversations/paths'
import { Logo } from './Logo'
import { RecentConversations } from './RecentConversations'
import { ThemeMenu } from './ThemeMenu'
import { type NavArea, useNavAreas } from './WorkspaceNav'

const NAV_ITEM =
  'flex h-8 items-center gap-2 rounded-md px-2 text-[13px] text-muted-foreground transition-colors hover:bg-accent hover:text-foreground [&_svg]:size-4 [&_svg]:shrink-0'

/** One area of the nav: a dashboard route, or (a plugin's area) a link to the page it serves. */
function NavItem({ area: { to, href, end, icon, label }, collapsed }: { area: NavArea; collapsed: boolean }) {
  const content: ReactNode = (
    <>
      {icon}
      {!collapsed && <span className="truncate">{label}</span>}
    </>
  )
  const link =
    to === undefined ? (
      <a href={href} aria-label={collapsed ? label : undefined} className={cn(NAV_ITEM, collapsed && 'w-8 justify-center px-0')}>
        {content}
      </a>
    ) : (
      <NavLink
        to={to}
        end={end}
        aria-label={collapsed ? label : undefined}
        className={({ isActive }) => cn(NAV_ITEM, isActive && 'bg-accent font-medium text-foreground', collapsed && 'w-8 justify-center px-0')}
      >
        {content}
      </NavLink>
    )
  return collapsed ? (
    <Tooltip content={label} side="right">
      {link}
    </Tooltip>
  ) : (
    link
  )
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-0.5">
      <h2 className="px-2 pb-1 text-[11px] font-medium uppercase tracking-wider text-muted-foreground/80">{title}</h2>
      {children}
    </section>
  )
}

function AgentList() {
  const { data } = useAgents()
  if (!data) return null
  return (
    <Section title="Agents">
      {data.agents.length === 0 && <p className="px-2 text-xs text-muted-foreground">No agents found.</p>}
      {data.agents.map((agent) => (
        <NavLink
          key={agent.slug}
          to={agentPath(agent.slug)}
          className={({ isActive }) =>
            cn(
              'flex h-7 items-center gap-2 rounded-md px-2 text-[13px] text-muted-foreground hover:bg-accent hover:text-foreground',
              isActive && 'bg-accent text-foreground',
            )
          }
        >
          <Bot className="size-3.5 shrink-0" />
          <span className="truncate">{agent.label ?? agent.name}</span>
        </NavLink>
      ))}
    </Section>
  )
}

function Footer({ collapsed }: { collapsed: boolean }) {
  const health = useHealth()
  const agents = useAgents()
  const count = agents.data?.agents.length
  return (
    <div className={cn('flex items-center gap-1 border-t p-2', collapsed ? 'flex-col' : 'justify-between')}>
      <ThemeMenu compact={collapsed} />
      {!collapsed && (
        <span className="truncate px-1 font-mono text-[11px] text-muted-foreground" data-testid="sidebar-footer">
          {health.data ? `v${health.data.version}` : 'v…'}
          {count !== undefined && ` · ${count} ${count === 1 ? 'agent' : 'agents'}`}
        </span>
      )}
    </div>
  )
}

/**
 * The sidebar itself: docked beside the content (whole, or folded to its icons), or inside the
 * drawer on a narrow window, where its toggle closes the drawer.
 */
export function Sidebar({ collapsed, onToggle, drawer = false }: { collapsed: boolean; onToggle: () => void; drawer?: boolean }) {
  const ToggleIcon = collapsed ? PanelLeftOpen : PanelLeftClose
  const action = drawer ? 'Close' : collapsed ? 'Expand' : 'Collapse'
  const areas = useNavAreas()
  return (
    <aside
      aria-label="Sidebar"
      className={cn(
        'flex h-full shrink-0 flex-col bg-surface',
        drawer ? 'w-full' : ['border-r transition-[width] duration-150', collapsed ? 'w-14' : 'w-64'],
      )}
    >
      <div className={cn('flex h-14 items-center gap-2 px-3', collapsed && 'flex-col justify-center px-0')}>
        {!collapsed && (
          <>
            <Logo className="size-6" />
            <span className="font-semibold tracking-tight">Synapse</span>
          </>
        )}
        <Tooltip content={drawer ? 'Close sidebar (Esc)' : `${action} sidebar (Ctrl+B)`} side="right">
          <button
            type="button"
            onClick={onToggle}
            aria-label={`${action} sidebar`}
            aria-expanded={drawer ? undefined : !collapsed}
            className="ml-auto flex size-8 cursor-pointer items-center justify-center rounded-md text-muted-foreground hover:bg-accent hover:text-foreground data-[c=true]:ml-0"
            data-c={collapsed}
          >
            {collapsed ? <Logo className="size-6" /> : <ToggleIcon className="size-4" />}
          </button>
        </Tooltip>
      </div>
      <nav aria-label="Workspace" className={cn('space-y-0.5 px-2', collapsed && 'flex flex-col items-center')}>
        {areas.map((area) => (
          <NavItem key={area.name} area={area} collapsed={collapsed} />
        ))}
      </nav>
      <div className="mt-4 min-h-0 flex-1 space-y-5 overflow-y-auto px-2 pb-3">
        {!collapsed && (
          <>
            <RecentConversations />
            <AgentList />
          </>
        )}
      </div>
      <Footer collapsed={collapsed} />
    </aside>
  )
}
