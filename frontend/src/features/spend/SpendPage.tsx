// /spend — what the model calls cost: a chart per day stacked by agent or model and the table
// behind it, the spending limits with their headroom, and the log of calls a limit refused.
import { CircleSlash } from '@/components/icons'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useSearchParams } from 'react-router'
import { SPEND_GROUPS, SPEND_STACKS } from '@/lib/api/spend'
import { EmptyState, PageHeader } from '@/components/common/States'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { useAgentNames } from './agentNames'
import { LimitsPanel } from './LimitsPanel'
import { Loading } from './Loading'
import { OverrunsPanel } from './OverrunsPanel'
import { useSpendReport } from './queries'
import { SpendChart } from './SpendChart'
import { changeState, readState, spendQuery, TABS, writeState, type SpendState, type Tab } from './spendParams'
import { SpendTable } from './SpendTable'
import { label, Segmented, SpendToolbar } from './SpendToolbar'

/** Currencies with no exchange rate: their calls are counted as unpriced, never added as if converted. */
function MissingRates({ currencies, reference }: { currencies: string[]; reference: string }) {
  if (currencies.length === 0) return null
  const them = currencies.length === 1 ? 'it' : 'them'
  return (
    <p role="status" data-testid="missing-rates" className="rounded-md border border-warning/40 bg-warning-soft/60 px-3 py-2 text-xs">
      No exchange rate for {currencies.join(', ')} to {reference}: calls priced in {them} count as unpriced here, and limits in another currency
      leave them out, until <code className="font-mono">currency_rates</code> gives one.
    </p>
  )
}

function SpendTab({ state, onChange }: { state: SpendState; onChange: (change: Partial<SpendState>) => void }) {
  const report = useSpendReport(spendQuery(state))
  const nameOf = useAgentNames()
  const data = report.data
  return (
    <div className="space-y-4">
      <SpendToolbar state={state} onChange={onChange} />
      <Loading resource={report} />
      {data && <MissingRates currencies={data.missing_rates ?? []} reference={data.currency} />}
      {data?.totals.calls === 0 && <EmptyState icon={<CircleSlash />} title="No model calls" />}
      {data && data.totals.calls > 0 && (
        <div className={report.loading ? 'space-y-4 opacity-60' : 'space-y-4'}>
          <section className="space-y-3 rounded-lg border p-4" aria-label="Cost per day">
            <Segmented name="Stack by" options={SPEND_STACKS} value={state.stack} onChange={(stack) => onChange({ stack })} />
            <SpendChart series={data.series} from={state.from} to={state.to} currency={data.currency} stack={state.stack} nameOf={state.stack === 'agent' ? nameOf : undefined} />
          </section>
          <section className="space-y-2" aria-label="Spend table">
            <Segmented name="Group by" options={SPEND_GROUPS} value={state.by} onChange={(by) => onChange({ by })} />
            <SpendTable by={data.by} rows={data.rows} totals={data.totals} currency={data.currency} nameOf={data.by === 'agent' ? nameOf : undefined} />
          </section>
        </div>
      )}
    </div>
  )
}

export function SpendPage() {
  const [params, setParams] = useSearchParams()
  const query = params.toString()
  // The URL is the source of truth (reload, back, shared links); a local copy makes each control
  // answer at once instead of waiting for the router's transition.
  const [state, setState] = useState(() => readState(params))
  useEffect(() => setState(readState(new URLSearchParams(query))), [query])
  const latest = useRef(state)
  latest.current = state
  const update = useCallback(
    (change: Partial<SpendState>) => {
      const next = changeState(latest.current, change)
      latest.current = next
      setState(next)
      setParams(writeState(next))
    },
    [setParams],
  )
  return (
    <div className="flex h-full flex-col overflow-y-auto">
      <PageHeader title="Spend" description="What the model calls cost, the limits that cap it, and the calls they refused." />
      <Tabs value={state.tab} onValueChange={(tab) => update({ tab: tab as Tab })} className="gap-4 px-6 py-4">
        <TabsList aria-label="Spend sections" className="self-start">
          {TABS.map((tab) => (
            <TabsTrigger key={tab} value={tab}>
              {label(tab)}
            </TabsTrigger>
          ))}
        </TabsList>
        <TabsContent value="spend">
          <SpendTab state={state} onChange={update} />
        </TabsContent>
        <TabsContent value="limits">
          <LimitsPanel onOverruns={(limit) => update({ tab: 'overruns', limit })} />
        </TabsContent>
        <TabsContent value="overruns">
          <OverrunsPanel state={state} onChange={update} />
        </TabsContent>
      </Tabs>
    </div>
  )
}
