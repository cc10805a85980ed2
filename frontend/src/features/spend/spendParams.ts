// The Spend page's state lives in the URL, so a reload (or a shared link) keeps the tab, the
// grouping, the stacking, the date range, the filters and the overrun log's page.
import { SPEND_GROUPS, SPEND_STACKS, type SpendGroup, type SpendStack } from '@/lib/api/spend'

export const TABS = ['spend', 'limits', 'overruns'] as const
export type Tab = (typeof TABS)[number]

/** The report's filters, as the API names them. */
export const FILTERS = ['agent', 'user', 'tenant', 'model'] as const
export type FilterName = (typeof FILTERS)[number]

export interface SpendState {
  tab: Tab
  by: SpendGroup
  stack: SpendStack
  /** Days, YYYY-MM-DD (the report's days, in the server's `limits_timezone`); empty for no bound. */
  from: string
  to: string
  agent: string
  user: string
  tenant: string
  model: string
  /** The overrun log: only this limit's overruns. */
  limit: string
  /** The overrun log's page. */
  page: number
}

/** The settings that are one of a list, each with its default (the first). */
const CHOICES = { tab: TABS, by: SPEND_GROUPS, stack: SPEND_STACKS } as const
const TEXTS = ['from', 'to', ...FILTERS, 'limit'] as const

export const DEFAULT_STATE: SpendState = {
  tab: 'spend',
  by: 'day',
  stack: 'agent',
  from: '',
  to: '',
  agent: '',
  user: '',
  tenant: '',
  model: '',
  limit: '',
  page: 1,
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const MAX_TEXT = 255

function text(name: (typeof TEXTS)[number], value: string | null): string {
  const clean = (value ?? '').trim()
  if (name === 'from' || name === 'to') return DAY.test(clean) && !Number.isNaN(Date.parse(clean)) ? clean : ''
  return clean.length <= MAX_TEXT && !clean.includes('\u0000') ? clean : ''
}

export function readState(params: URLSearchParams): SpendState {
  const state: SpendState = { ...DEFAULT_STATE }
  for (const [name, values] of Object.entries(CHOICES) as [keyof typeof CHOICES, readonly string[]][]) {
    const value = params.get(name) ?? ''
    if (values.includes(value)) (state as unknown as Record<string, string>)[name] = value
  }
  for (const name of TEXTS) state[name] = text(name, params.get(name))
  if (state.from && state.to && state.from > state.to) [state.from, state.to] = [state.to, state.from]
  const page = Number.parseInt(params.get('page') ?? '1', 10)
  state.page = page > 0 ? page : 1
  return state
}

/** The URL query for a state; defaults are left out so the plain page has a plain URL. */
export function writeState(state: SpendState): URLSearchParams {
  const params = new URLSearchParams()
  for (const name of Object.keys(CHOICES) as (keyof typeof CHOICES)[]) if (state[name] !== DEFAULT_STATE[name]) params.set(name, state[name])
  for (const name of TEXTS) if (state[name]) params.set(name, state[name])
  if (state.page > 1) params.set('page', String(state.page))
  return params
}

function pick(state: SpendState, names: readonly (typeof TEXTS)[number][], params: URLSearchParams): URLSearchParams {
  for (const name of names) if (state[name]) params.set(name, state[name])
  return params
}

/** GET /api/spend's query: the grouping, the stacking, the days and the filters. */
export function spendQuery(state: SpendState): URLSearchParams {
  return pick(state, ['from', 'to', ...FILTERS], new URLSearchParams({ by: state.by, stack: state.stack }))
}

/** GET /api/limits/overruns's query: the limit, the days and the page. */
export function overrunsQuery(state: SpendState): URLSearchParams {
  const params = pick(state, ['limit', 'from', 'to'], new URLSearchParams())
  params.set('page', String(state.page))
  return params
}

/** Apply a change; anything but a page change goes back to the first page of the log. */
export function changeState(state: SpendState, change: Partial<SpendState>): SpendState {
  return { ...state, ...change, page: change.page ?? 1 }
}
