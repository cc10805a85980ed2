// The overrun log: every model call a limit refused, newest first, a page at a time; what the
// limit was, what its window held, what the call would have cost and by how much it went over.
import { CheckCircle2, X } from '@/components/icons'
import type { Overrun } from '@/lib/api/spend'
import { formatDateTime, formatInt } from '@/lib/format'
import { EmptyState } from '@/components/common/States'
import { Pagination } from '@/components/ui/pagination'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { DateRange } from '@/features/history/DateRange'
import { useAgentNames } from './agentNames'
import { PERIOD_LABEL } from './limitForm'
import { Loading } from './Loading'
import { formatMoney } from './money'
import { useOverruns } from './queries'
import { overrunsQuery, type SpendState } from './spendParams'

/** Rows per page of the log, when the server does not say. */
export const OVERRUNS_PAGE_SIZE = 50

const AMOUNTS = [
  ['limit_amount', 'Amount'],
  ['consumed', 'Consumed'],
  ['estimated', 'Estimated'],
  ['overrun', 'Over by'],
] as const

function Row({ overrun: o, nameOf }: { overrun: Overrun; nameOf: (key: string) => string }) {
  const agent = o.agent_key ? nameOf(o.agent_key) : null
  return (
    <TableRow data-testid="overrun-row">
      <TableCell className="whitespace-nowrap text-muted-foreground" data-label="When">
        {formatDateTime(o.created_at)}
      </TableCell>
      {/* One box per cell: a stacked row on a phone lays its label and this side by side. */}
      <TableCell data-label="Limit">
        <div>
          {o.scope} <span className="font-mono">{o.scope_id}</span>
          <p className="text-muted-foreground">{PERIOD_LABEL[o.period] ?? o.period}</p>
        </div>
      </TableCell>
      <TableCell className="font-mono" data-label="Agent & who">
        <div>
          {agent === null ? '—' : <span title={agent === o.agent_key ? undefined : (o.agent_key ?? undefined)} data-testid="overrun-agent">{agent}</span>}
          <p className="text-muted-foreground">{[o.tenant, o.user].filter(Boolean).join(' · ')}</p>
        </div>
      </TableCell>
      {AMOUNTS.map(([name, label]) => (
        <TableCell key={name} className="text-right font-mono" data-testid={`overrun-${name}`} data-label={label}>
          {formatMoney(o[name], o.currency)}
        </TableCell>
      ))}
    </TableRow>
  )
}

export function OverrunsPanel({ state, onChange }: { state: SpendState; onChange: (change: Partial<SpendState>) => void }) {
  const list = useOverruns(overrunsQuery(state))
  const nameOf = useAgentNames()
  const data = list.data
  const size = data?.page_size ?? OVERRUNS_PAGE_SIZE
  const first = (state.page - 1) * size + 1
  return (
    <section aria-label="Overruns" className="space-y-3">
      <div className="flex flex-wrap items-center gap-2">
        <DateRange from={state.from} to={state.to} onChange={(from, to) => onChange({ from, to })} />
        {state.limit && (
          <button type="button" onClick={() => onChange({ limit: '' })} className="flex h-8 cursor-pointer items-center gap-1.5 rounded-md border px-2 text-[13px] text-muted-foreground" aria-label="Show the overruns of every limit">
            Limit <span className="font-mono text-xs text-foreground">{state.limit}</span> <X className="size-3.5" />
          </button>
        )}
      </div>
      <Loading resource={list} />
      {data?.overruns.length === 0 && <EmptyState icon={<CheckCircle2 />} title="No call was refused" />}
      {data && data.overruns.length > 0 && (
        <>
          <Table aria-label="Overrun log" className="table-stack rounded-lg border text-xs">
            <TableHeader>
              <TableRow>
                {['When', 'Limit', 'Agent & who'].map((name) => (
                  <TableHead key={name}>{name}</TableHead>
                ))}
                {AMOUNTS.map(([name, label]) => (
                  <TableHead key={name} className="text-right">
                    {label}
                  </TableHead>
                ))}
              </TableRow>
            </TableHeader>
            <TableBody>
              {data.overruns.map((overrun) => (
                <Row key={overrun.id} overrun={overrun} nameOf={nameOf} />
              ))}
            </TableBody>
          </Table>
          <div className="flex items-center justify-between gap-3">
            <p className="text-xs text-muted-foreground" data-testid="overrun-count">
              {formatInt(first)}–{formatInt(first + data.overruns.length - 1)} of {formatInt(data.total)}
            </p>
            <Pagination page={state.page} pages={Math.ceil(data.total / size)} onPage={(page) => onChange({ page })} />
          </div>
        </>
      )}
    </section>
  )
}
