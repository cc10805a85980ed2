import { ArrowDown, ArrowUp, PanelRight, Plus, Trash2, Unlink } from '@/components/icons'
import type { AgentInfo, ConversationTotals, ThreadConversation } from '@/lib/api/types'
import { cn } from '@/lib/cn'
import { formatInt, formatModel, plural } from '@/lib/format'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { Tooltip } from '@/components/ui/tooltip'
import { AgentBadges } from '@/features/agents/AgentBadges'
import { OriginBadge } from '@/features/conversations/ScopeChips'
import { formatMoney } from '@/features/spend/money'
import { ConversationScope } from './ConversationScope'
import { PrivacyBadge } from './PrivacyBadge'

function Totals({ totals }: { totals: ConversationTotals }) {
  return (
    <Tooltip content="Conversation totals: input and output tokens, cost, tool calls">
      <span tabIndex={0} className="hidden items-center gap-2.5 rounded-md border px-2 py-1 font-mono text-[11px] text-muted-foreground md:flex" data-testid="conversation-totals">
        <span className="flex items-center gap-0.5">
          <ArrowUp className="size-3" />
          {formatInt(totals.input_tokens)}
        </span>
        <span className="flex items-center gap-0.5">
          <ArrowDown className="size-3" />
          {formatInt(totals.output_tokens)}
        </span>
        <span data-testid="conversation-cost">{formatMoney(totals.cost)}</span>
        <span>{plural(totals.tool_calls, 'tool')}</span>
      </span>
    </Tooltip>
  )
}

export function PlaygroundHeader({
  agent,
  conversation,
  title,
  totals,
  hasConversation,
  infoOpen,
  onNew,
  onClear,
  onToggleInfo,
}: {
  agent: AgentInfo | undefined
  /** The stored conversation, when there is one: its origin and scope show as chips. */
  conversation?: ThreadConversation
  title: string | null
  totals: ConversationTotals | null
  hasConversation: boolean
  infoOpen: boolean
  onNew: () => void
  onClear: () => void
  onToggleInfo: () => void
}) {
  return (
    <header className="flex h-14 shrink-0 items-center gap-1 border-b px-2 sm:gap-3 sm:px-4">
      <div className="min-w-0 flex-1">
        {agent ? (
          <div className="flex min-w-0 items-center gap-2">
            <h1 className="truncate text-sm font-semibold">{agent.label ?? agent.name}</h1>
            <span className="hidden truncate font-mono text-xs text-muted-foreground sm:inline">{formatModel(agent.model?.provider, agent.model?.name)}</span>
            {agent.stateless && (
              <Tooltip content="Stateless — each message is sent independently; the agent does not see earlier turns.">
                <Badge variant="secondary" tabIndex={0} data-testid="stateless-badge">
                  <Unlink /> Stateless
                </Badge>
              </Tooltip>
            )}
            <span className="hidden gap-1.5 lg:flex">
              <AgentBadges agent={{ ...agent, stateless: false }} />
            </span>
          </div>
        ) : (
          <Skeleton className="h-4 w-48" />
        )}
        <div className="flex min-w-0 items-center gap-2">
          <p className="truncate text-xs text-muted-foreground" data-testid="conversation-title">
            {title ?? 'New conversation'}
          </p>
          {conversation && <OriginBadge origin={conversation.origin} className="shrink-0" />}
          {conversation && <PrivacyBadge conversationId={conversation.id} />}
          {conversation && <ConversationScope scoped={conversation} />}
        </div>
      </div>
      {totals && hasConversation && <Totals totals={totals} />}
      <Tooltip content="New conversation">
        <Button variant="ghost" size="icon" onClick={onNew} aria-label="New conversation">
          <Plus />
        </Button>
      </Tooltip>
      <Tooltip content="Clear conversation">
        <Button variant="ghost" size="icon" onClick={onClear} disabled={!hasConversation} aria-label="Clear conversation">
          <Trash2 />
        </Button>
      </Tooltip>
      <Tooltip content="Agent info (Ctrl+I)">
        <Button
          variant="ghost"
          size="icon"
          onClick={onToggleInfo}
          aria-label="Agent info"
          aria-pressed={infoOpen}
          className={cn(infoOpen && 'bg-accent text-foreground')}
        >
          <PanelRight />
        </Button>
      </Tooltip>
    </header>
  )
}
