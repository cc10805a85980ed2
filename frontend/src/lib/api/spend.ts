// The accounting API (docs/dashboard.md, "Spend"): spend grouped and per day, spending limits
// with their headroom, and the log of calls a limit refused. Amounts are decimal strings, never
// floats; a null cost is unpriced (the price is unknown), which is not the same as free.
import { json, request } from './client'

/** What a spend report groups its rows by. */
export const SPEND_GROUPS = ['day', 'agent', 'user', 'tenant', 'model'] as const
export type SpendGroup = (typeof SPEND_GROUPS)[number]

/** What the chart's bars are stacked by. */
export const SPEND_STACKS = ['agent', 'model'] as const
export type SpendStack = (typeof SPEND_STACKS)[number]

/** Who a limit applies to. */
export const LIMIT_SCOPES = ['tenant', 'user', 'agent', 'preset'] as const
export type LimitScope = (typeof LIMIT_SCOPES)[number]

/** The period a limit counts over: a calendar day or month (in its time zone), or the last 24 h / 30 days. */
export const LIMIT_PERIODS = ['calendar_day', 'calendar_month', 'sliding_day', 'sliding_month'] as const
export type LimitPeriod = (typeof LIMIT_PERIODS)[number]

/** A decimal amount as the API writes it ("0.00042", "12.5", possibly "1E-7"). */
export type Decimal = string

export interface SpendFigures {
  calls: number
  input_tokens: number
  output_tokens: number
  /** Null only when every call of the group is unpriced. */
  cost: Decimal | null
  /** Calls whose price is unknown: counted, never summed as 0. */
  unpriced_calls: number
}

export interface SpendRow extends SpendFigures {
  /** '' for the calls that name no agent, user, tenant or model. */
  key: string
  /** Grouped by day: the day (YYYY-MM-DD). */
  day?: string | null
}

export interface SpendPoint {
  day: string
  key: string
  cost: Decimal | null
}

export interface SpendReport {
  by: SpendGroup
  stack?: SpendStack
  /** The reference currency every amount is in. */
  currency: string
  /** The time zone of the report's days (the `limits_timezone` setting). */
  timezone?: string
  rows: SpendRow[]
  totals: SpendFigures
  /** Cost per day and per stack key, for the chart. */
  series: SpendPoint[]
  /** Currencies of the calls and registry prices with no rate to `currency`: their calls count as unpriced. */
  missing_rates?: string[]
}

export interface SpendingLimit {
  id: string
  scope: LimitScope
  /** `type:id` for a tenant or a user, the agent's slug, the preset's key. */
  scope_id: string
  period: LimitPeriod
  amount: Decimal
  currency: string
  /** IANA time zone of the calendar periods. */
  timezone: string
  enabled: boolean
  /** Spent in the current window plus what calls in flight have reserved. */
  consumed: Decimal
  headroom: Decimal
  window_start: string
  window_end: string
  /** The most one call's output may reserve under it (plus its input); null: it covers no model Synapse knows. */
  worst_call?: WorstCall | null
  created_at: string
  updated_at: string
}

/** The dearest output of one call a limit covers (docs/accounting.md, "The worst case a limit shows"). */
export interface WorstCall {
  /** In the limit's currency; null when the model has no known price. */
  amount: Decimal | null
  currency: string
  output_tokens: number
  model: string
  /** The agent whose model it is; null for a preset limit. */
  agent: string | null
}

/** A name a limit may apply to: `value` is sent, `label` shown. */
export interface LimitChoice {
  value: string
  label: string
  source: string
}

export interface LimitChoicesResponse {
  scope: LimitScope
  choices: LimitChoice[]
  truncated: boolean
}

export interface LimitsResponse {
  limits: SpendingLimit[]
}

export interface LimitBody {
  scope?: LimitScope
  scope_id?: string
  period?: LimitPeriod
  amount?: Decimal
  currency?: string
  timezone?: string
  enabled?: boolean
}

export interface Overrun {
  id: string
  limit_id: string | null
  user: string | null
  tenant: string | null
  scope: LimitScope
  scope_id: string
  period: LimitPeriod
  limit_amount: Decimal
  consumed: Decimal
  estimated: Decimal
  overrun: Decimal
  currency: string
  agent_key: string | null
  conversation_id: string | null
  run_id: string | null
  created_at: string
}

export interface OverrunsResponse {
  overruns: Overrun[]
  total: number
  /** Rows per page, when the server says. */
  page_size?: number
}

const enc = encodeURIComponent
const withQuery = (path: string, query: URLSearchParams) => {
  const qs = query.toString()
  return qs ? `${path}?${qs}` : path
}

export const spendApi = {
  report: (query: URLSearchParams) => request<SpendReport>(withQuery('/api/spend', query)),
  limits: () => request<LimitsResponse>('/api/limits'),
  createLimit: (body: LimitBody) => request<SpendingLimit>('/api/limits', json('POST', body)),
  updateLimit: (id: string, body: LimitBody) => request<SpendingLimit>(`/api/limits/${enc(id)}`, json('PATCH', body)),
  /** Resolves once deleted, whether the answer has a body or none (204). */
  deleteLimit: (id: string) =>
    request<unknown>(`/api/limits/${enc(id)}`, { method: 'DELETE' }).catch((error: unknown) => {
      if (!(error instanceof SyntaxError)) throw error
    }),
  /** What a limit of `scope` may apply to: known agents and presets, tenants and users seen in the ledger. */
  choices: (scope: LimitScope) => request<LimitChoicesResponse>(`/api/limits/choices?scope=${enc(scope)}`),
  overruns: (query: URLSearchParams) => request<OverrunsResponse>(withQuery('/api/limits/overruns', query)),
}
