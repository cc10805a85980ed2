import { CheckCircle2, GitFork, XCircle } from '@/components/icons'
import { Link, useNavigate } from 'react-router'
import type { ConversationRow } from '@/lib/api/types'
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

const INDENT_REM = 1.25
const MAX_INDENT = 4

function Title({ entry, path }: { entry: HistoryEntry; path: string }) {
  const { row, depth, forkOf } = entry
  const indent = depth ? { paddingLeft: `${Math.min(depth, MAX_INDENT) * INDENT_REM}rem` } : undefined
  return (
    <div className="min-w-0" style={indent}>
      <TitleLine row={row} depth={depth} forkOf={forkOf} path={path} />
      {row.snippet && <SearchSnippet text={row.snippet} matches={row.snippet_matches ?? []} className="mt-0.5 block truncate text-xs text-muted-foreground" />}
    </div>
  )
}

function TitleLine({ row, depth, forkOf, path }: HistoryEntry & { path: string }) {
  return (
    <div className="flex min-w-0 items-center gap-1.5">
      {(depth > 0 || forkOf) && <GitFork className="size-3.5 shrink-0 text-muted-foreground" aria-label="Fork" role="img" />}
      <Link to={path} onClick={(event) => event.stopPropagation()} className="min-w-0 truncate text-[13px] font-medium hover:underline">
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
    <Table aria-label="Conversations">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead className="w-44">Agent</TableHead>
          <TableHead>Message</TableHead>
          <TableHead className="w-44">Origin &amp; scope</TableHead>
          <TableHead className="w-24">Status</TableHead>
          <TableHead className="w-20 text-right">Tokens</TableHead>
          <TableHead className="w-24 text-right">Cost</TableHead>
          <TableHead className="w-44">Date &amp; time</TableHead>
          <TableHead className="w-10">
            <span className="sr-only">Actions</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {groupForks(rows).map((entry) => {
          const { row } = entry
          const path = conversationPath(row.agent_key, row.id)
          return (
            <TableRow
              key={row.id}
              className="cursor-pointer"
              onClick={() => navigate(path)}
              data-testid="history-row"
              data-depth={entry.depth}
              data-fork={row.forked_from_id ? 'true' : undefined}
            >
              <TableCell className="max-w-44 truncate text-[13px] text-muted-foreground">{row.agent_name}</TableCell>
              <TableCell className="max-w-0">
                <Title entry={entry} path={path} />
              </TableCell>
              <TableCell className="max-w-44">
                <div className="flex min-w-0 flex-col items-start gap-0.5">
                  <OriginBadge origin={row.origin} />
                  <ScopeLine scoped={row} className="max-w-full" />
                </div>
              </TableCell>
              <TableCell>
                <Status status={row.status} />
              </TableCell>
              <TableCell className="text-right font-mono text-xs" title={`${formatInt(row.input_tokens)} in · ${formatInt(row.output_tokens)} out`}>
                {formatCompact(row.total_tokens)}
              </TableCell>
              <TableCell
                className={row.cost === null ? 'text-right font-mono text-xs text-warning' : 'text-right font-mono text-xs'}
                title={row.cost === null ? 'No price is known for these calls' : formatMoney(row.cost, 'USD', { exact: true })}
                data-testid="history-cost"
              >
                {formatMoney(row.cost)}
              </TableCell>
              <TableCell className="font-mono text-xs text-muted-foreground">{formatDateTime(row.created_at)}</TableCell>
              <TableCell onClick={(event) => event.stopPropagation()}>
                <ConversationMenu conversation={row} />
              </TableCell>
            </TableRow>
          )
        })}
      </TableBody>
    </Table>
  )
}
