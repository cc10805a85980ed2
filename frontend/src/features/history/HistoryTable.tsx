import { CheckCircle2, GitFork, XCircle } from '@/components/icons'
import { Link, useNavigate } from 'react-router'
import type { ConversationRow } from '@/lib/api/types'
import { cn } from '@/lib/cn'
import { formatCompact, formatDateTime, formatInt } from '@/lib/format'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { ConversationMenu } from '@/features/conversations/ConversationMenu'
import { conversationPath } from '@/features/conversations/paths'
import { OriginBadge, ScopeLine } from '@/features/conversations/ScopeChips'
import { formatMoney } from '@/features/spend/money'
import { groupForks, type HistoryEntry, type HistoryRow } from './forkGroups'
import { SearchSnippet } from './SearchSnippet'

function Status({ status }: { status: ConversationRow['status'] }) {
  return status === 'error' ? (
    <span className="inline-flex items-center gap-1 text-xs text-destructive">
      <XCircle className="size-3.5" /> Error
    </span>
  ) : (
    <span className="inline-flex items-center gap-1 text-xs text-success">
      <CheckCircle2 className="size-3.5" /> Success
    </span>
  )
}

// From `lg` up the message cell takes the width the other columns leave (they are as wide as
// their content): its title on one line, then the agent, origin and scope, which wrap rather than
// being cut. Below `lg` each row is a card, the same cells laid out in two lines (the second
// wraps when the window is too narrow for it): the message cell with its menu; status, tokens,
// cost and date. The row's ::before breaks the lines; `order` places the cells.
const CARD_ROW =
  'max-lg:flex max-lg:flex-wrap max-lg:items-center max-lg:gap-x-3 max-lg:[row-gap:--spacing(1)] max-lg:px-3 max-lg:py-2.5 max-lg:before:order-3 max-lg:before:basis-full'
const CARD_CELL = 'max-lg:p-0'
const FIT = 'w-px whitespace-nowrap'

const INDENT_REM = 1.25
const MAX_INDENT = 4

function Title({ entry, path }: { entry: HistoryEntry; path: string }) {
  const { row, depth, forkOf } = entry
  const indent = depth ? { paddingLeft: `${Math.min(depth, MAX_INDENT) * INDENT_REM}rem` } : undefined
  return (
    <div className="min-w-0" style={indent}>
      <TitleLine row={row} depth={depth} forkOf={forkOf} path={path} />
      {row.snippet && (
        <SearchSnippet
          text={row.snippet}
          matches={row.snippet_matches ?? []}
          lead={24}
          className="mt-0.5 line-clamp-2 break-words text-xs text-muted-foreground"
        />
      )}
      <About row={row} />
    </div>
  )
}

/** The agent, origin and scope under the title; the scope wraps, whole, however long. */
function About({ row }: { row: HistoryRow }) {
  return (
    <div className="mt-1 flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5">
      <span className="min-w-0 max-w-full truncate text-xs text-muted-foreground" title={row.agent_name} data-testid="history-agent">
        {row.agent_name}
      </span>
      <OriginBadge origin={row.origin} />
      <ScopeLine scoped={row} className="min-w-0 max-w-full whitespace-normal! wrap-anywhere" />
    </div>
  )
}

function TitleLine({ row, depth, forkOf, path }: HistoryEntry & { path: string }) {
  return (
    <div className="flex min-w-0 items-center gap-1.5">
      {(depth > 0 || forkOf) && <GitFork className="size-3.5 shrink-0 text-muted-foreground" aria-label="Fork" role="img" />}
      <Link to={path} onClick={(event) => event.stopPropagation()} className="min-w-0 truncate text-[13px] font-medium hover:underline max-lg:whitespace-normal max-lg:break-words">
        {row.title || 'Untitled'}
      </Link>
      {forkOf && (
        <Link
          to={conversationPath(row.agent_key, forkOf)}
          onClick={(event) => event.stopPropagation()}
          className="shrink-0 text-xs text-muted-foreground hover:text-foreground hover:underline"
          data-testid="fork-of"
        >
          fork of <span className="font-mono">{forkOf.slice(0, 8)}…</span>
        </Link>
      )}
    </div>
  )
}

export function HistoryTable({ rows }: { rows: HistoryRow[] }) {
  const navigate = useNavigate()
  return (
    // `relative`: the header's visually hidden label stays inside the table's own scroller.
    <Table aria-label="Conversations" className="relative max-lg:block">
      <TableHeader className="max-lg:hidden">
        <TableRow className="hover:bg-transparent">
          <TableHead>Message, agent &amp; scope</TableHead>
          <TableHead className={FIT}>Status</TableHead>
          <TableHead className={cn(FIT, 'text-right')}>Tokens</TableHead>
          <TableHead className={cn(FIT, 'text-right')}>Cost</TableHead>
          <TableHead className={FIT}>Date &amp; time</TableHead>
          <TableHead className="w-10">
            <span className="sr-only">Actions</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody className="max-lg:block">
        {groupForks(rows).map((entry) => {
          const { row } = entry
          const path = conversationPath(row.agent_key, row.id)
          return (
            <TableRow
              key={row.id}
              className={cn('cursor-pointer', CARD_ROW)}
              onClick={() => navigate(path)}
              data-testid="history-row"
              data-depth={entry.depth}
              data-fork={row.forked_from_id ? 'true' : undefined}
            >
              <TableCell className={cn('max-w-0 max-lg:order-1 max-lg:min-w-0 max-lg:max-w-none max-lg:flex-1', CARD_CELL)}>
                <Title entry={entry} path={path} />
              </TableCell>
              <TableCell className={cn('max-lg:order-4 lg:whitespace-nowrap', CARD_CELL)}>
                <Status status={row.status} />
              </TableCell>
              <TableCell
                className={cn('text-right font-mono text-xs max-lg:order-8 lg:whitespace-nowrap', CARD_CELL)}
                title={`${formatInt(row.input_tokens)} in · ${formatInt(row.output_tokens)} out`}
                data-testid="history-tokens"
              >
                {formatCompact(row.total_tokens)}
                <span className="text-muted-foreground lg:hidden"> tokens</span>
              </TableCell>
              <TableCell
                className={cn('text-right font-mono text-xs max-lg:order-9 lg:whitespace-nowrap', row.cost === null && 'text-warning', CARD_CELL)}
                title={row.cost === null ? 'No price is known for these calls' : formatMoney(row.cost, 'USD', { exact: true })}
                data-testid="history-cost"
              >
                {formatMoney(row.cost)}
              </TableCell>
              <TableCell className={cn('font-mono text-xs text-muted-foreground max-lg:order-10 lg:whitespace-nowrap', CARD_CELL)} data-testid="history-date">
                {formatDateTime(row.created_at)}
              </TableCell>
              <TableCell className={cn('max-lg:order-2 max-lg:self-start', CARD_CELL)} onClick={(event) => event.stopPropagation()}>
                <ConversationMenu conversation={row} />
              </TableCell>
            </TableRow>
          )
        })}
      </TableBody>
    </Table>
  )
}
