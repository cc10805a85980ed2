import { CheckCircle2, XCircle } from '@/components/icons'
import { Link, useNavigate } from 'react-router'
import type { ConversationRow } from '@/lib/api/types'
import { formatCompact, formatDateTime, formatInt } from '@/lib/format'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { ConversationMenu } from '@/features/conversations/ConversationMenu'
import { conversationPath } from '@/features/conversations/paths'

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

export function HistoryTable({ rows }: { rows: ConversationRow[] }) {
  const navigate = useNavigate()
  return (
    <Table aria-label="Conversations">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead className="w-44">Agent</TableHead>
          <TableHead>Message</TableHead>
          <TableHead className="w-24">Status</TableHead>
          <TableHead className="w-20 text-right">Tokens</TableHead>
          <TableHead className="w-44">Date &amp; time</TableHead>
          <TableHead className="w-10">
            <span className="sr-only">Actions</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((row) => {
          const path = conversationPath(row.agent_key, row.id)
          return (
            <TableRow key={row.id} className="cursor-pointer" onClick={() => navigate(path)} data-testid="history-row">
              <TableCell className="max-w-44 truncate text-[13px] text-muted-foreground">{row.agent_name}</TableCell>
              <TableCell className="max-w-0">
                <Link to={path} onClick={(event) => event.stopPropagation()} className="block truncate text-[13px] font-medium hover:underline">
                  {row.title || 'Untitled'}
                </Link>
              </TableCell>
              <TableCell>
                <Status status={row.status} />
              </TableCell>
              <TableCell className="text-right font-mono text-xs" title={`${formatInt(row.input_tokens)} in · ${formatInt(row.output_tokens)} out`}>
                {formatCompact(row.total_tokens)}
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
