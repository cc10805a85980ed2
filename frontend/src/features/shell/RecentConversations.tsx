import { NavLink } from 'react-router'
import { cn } from '@/lib/cn'
import { useConversations } from '@/lib/queries'
import { Skeleton } from '@/components/ui/skeleton'
import { ConversationMenu } from '@/features/conversations/ConversationMenu'
import { conversationPath } from '@/features/conversations/paths'

const RECENT = new URLSearchParams({ sort: 'newest', page: '1' })
const SHOWN = 12

export function RecentConversations() {
  const { data, error, loading } = useConversations(RECENT)
  return (
    <section aria-label="Recent conversations" className="space-y-0.5">
      <h2 className="px-2 pb-1 text-[11px] font-medium uppercase tracking-wider text-muted-foreground/80">Recent</h2>
      {loading && !data && [0, 1, 2].map((i) => <Skeleton key={i} className="mx-2 my-1.5 h-7" />)}
      {error !== undefined && !data && <p className="px-2 text-xs text-muted-foreground">History is unavailable.</p>}
      {data?.conversations.length === 0 && <p className="px-2 text-xs text-muted-foreground">No conversations yet.</p>}
      <ul>
        {data?.conversations.slice(0, SHOWN).map((row) => (
          <li key={row.id} className="group/recent relative">
            <NavLink
              to={conversationPath(row.agent_key, row.id)}
              className={({ isActive }) =>
                cn('block rounded-md px-2 py-1.5 pr-8 hover:bg-accent', isActive && 'bg-accent')
              }
            >
              <span className="flex items-center gap-1.5 text-[13px]">
                {row.status === 'error' && <span className="size-1.5 shrink-0 rounded-full bg-destructive" aria-label="Has an error" role="img" />}
                <span className="truncate">{row.title || 'Untitled'}</span>
              </span>
              <span className="flex gap-1.5 truncate text-[11px] text-muted-foreground">
                <span className="truncate">{row.agent_name}</span>
                <span aria-hidden>·</span>
                <span className="shrink-0 font-mono">{row.message_count} msg</span>
              </span>
            </NavLink>
            <ConversationMenu
              conversation={row}
              className="absolute right-1 top-1.5 opacity-0 focus-visible:opacity-100 group-hover/recent:opacity-100 data-[state=open]:opacity-100"
            />
          </li>
        ))}
      </ul>
    </section>
  )
}
