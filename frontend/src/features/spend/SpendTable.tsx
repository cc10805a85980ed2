// The report's rows behind the chart: calls, tokens, cost and unpriced calls per day, agent, user,
// tenant or model, with a totals row. A null cost reads "unpriced", never $0.
import type { SpendFigures, SpendGroup, SpendRow } from '@/lib/api/spend'
import { cn } from '@/lib/cn'
import { formatInt } from '@/lib/format'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { formatMoney } from './money'
import { label as capitalised } from './SpendToolbar'

const COUNTS = [
  ['calls', 'Calls'],
  ['input_tokens', 'Input tokens'],
  ['output_tokens', 'Output tokens'],
] as const

function Figures({ figures: f, currency }: { figures: SpendFigures; currency: string }) {
  return (
    <>
      {COUNTS.map(([name, label]) => (
        <TableCell key={name} className="text-right" data-label={label}>
          {formatInt(f[name])}
        </TableCell>
      ))}
      <TableCell className={cn('text-right', f.cost === null && 'text-warning')} title={formatMoney(f.cost, currency, { exact: true })} data-testid="spend-cost" data-label="Cost">
        {formatMoney(f.cost, currency)}
      </TableCell>
      <TableCell className={cn('text-right', f.unpriced_calls ? 'text-warning' : 'text-muted-foreground')} data-label="Unpriced">
        {formatInt(f.unpriced_calls)}
      </TableCell>
    </>
  )
}

export function SpendTable({
  by,
  rows,
  totals,
  currency,
  nameOf = (key) => key,
}: {
  by: SpendGroup
  rows: SpendRow[]
  totals: SpendFigures
  currency: string
  /** What to call a row's key (grouped by agent: the agent's name, the slug in a tooltip). */
  nameOf?: (key: string) => string
}) {
  return (
    // Stacked below `lg` (styles/index.css): each row a card, each figure a labelled line.
    <Table aria-label={`Spend by ${by}`} className="table-stack font-mono text-xs">
      <TableHeader>
        <TableRow>
          <TableHead className="capitalize">{by}</TableHead>
          {[...COUNTS, [0, 'Cost'], [1, 'Unpriced']].map(([name, label]) => (
            <TableHead key={name} className="w-32 text-right">
              {label}
            </TableHead>
          ))}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((row) => {
          const key = row.day ?? row.key
          return (
            <TableRow key={key} data-testid="spend-row" data-key={key}>
              <TableCell className="max-w-0 truncate max-lg:font-medium" data-label={capitalised(by)}>
                {key ? (
                  <span title={nameOf(key) === key ? undefined : key}>{nameOf(key)}</span>
                ) : (
                  <span className="text-muted-foreground">(none)</span>
                )}
              </TableCell>
              <Figures figures={row} currency={currency} />
            </TableRow>
          )
        })}
      </TableBody>
      <tfoot className="border-t bg-muted/30 font-medium">
        <TableRow data-testid="spend-totals">
          <TableCell className="max-lg:font-semibold">Total</TableCell>
          <Figures figures={totals} currency={currency} />
        </TableRow>
      </tfoot>
    </Table>
  )
}
