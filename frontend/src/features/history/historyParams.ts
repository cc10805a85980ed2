// History's state lives in the URL, so a reload (or a shared link) keeps search, filters, sort and page.

import { ORIGINS, SCOPE_AXES, type Origin, type ScopeAxis } from '@/lib/api/types'
import { formatInt } from '@/lib/format'

export type StatusFilter = '' | 'success' | 'error'
export type Sort = 'newest' | 'oldest'

export interface HistoryState {
  search: string
  agents: string[]
  status: StatusFilter
  tools: string[]
  from: string
  to: string
  origins: Origin[]
  /** `type:id`, or a type alone for every id of that type; empty for no filter. */
  tenant: string
  actor: string
  subject: string
  /** Only the forks of this conversation. */
  forkedFrom: string
  sort: Sort
  page: number
}

export const DEFAULT_STATE: HistoryState = {
  search: '',
  agents: [],
  status: '',
  tools: [],
  from: '',
  to: '',
  origins: [],
  tenant: '',
  actor: '',
  subject: '',
  forkedFrom: '',
  sort: 'newest',
  page: 1,
}

const SCOPE_PART_MAX = 255

/** Whether `value` is a scope filter the API takes: `type:id`, or a type alone (`type` or `type:`). */
export function validScopeFilter(value: string): boolean {
  const cut = value.indexOf(':')
  const type = cut === -1 ? value : value.slice(0, cut)
  const id = cut === -1 ? '' : value.slice(cut + 1)
  if (!type.trim() || type !== type.trim() || value.includes('\u0000')) return false
  return type.length <= SCOPE_PART_MAX && id.length <= SCOPE_PART_MAX
}

/** A Synapse id (UUIDv7), the only thing `forked_from` takes. */
const CONVERSATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const isOrigin = (value: string): value is Origin => (ORIGINS as readonly string[]).includes(value)

const DATE = /^\d{4}-\d{2}-\d{2}$/

export function readState(params: URLSearchParams): HistoryState {
  const status = params.get('status')
  const page = Number.parseInt(params.get('page') ?? '1', 10)
  const date = (key: string) => {
    const value = params.get(key) ?? ''
    return DATE.test(value) ? value : ''
  }
  const scope = (axis: ScopeAxis) => {
    const value = (params.get(axis) ?? '').trim()
    return validScopeFilter(value) ? value : ''
  }
  return {
    search: params.get('search') ?? '',
    agents: params.getAll('agents').filter(Boolean),
    status: status === 'success' || status === 'error' ? status : '',
    tools: params.getAll('tools').filter(Boolean),
    from: date('from'),
    to: date('to'),
    origins: [...new Set(params.getAll('origin').filter(isOrigin))],
    tenant: scope('tenant'),
    actor: scope('actor'),
    subject: scope('subject'),
    forkedFrom: CONVERSATION_ID.test(params.get('forked_from') ?? '') ? (params.get('forked_from') ?? '') : '',
    sort: params.get('sort') === 'oldest' ? 'oldest' : 'newest',
    page: Number.isFinite(page) && page > 0 ? page : 1,
  }
}

/** The URL query for a state; defaults are left out so the plain page has a plain URL. */
export function writeState(state: HistoryState): URLSearchParams {
  const params = new URLSearchParams()
  if (state.search.trim()) params.set('search', state.search.trim())
  for (const agent of state.agents) params.append('agents', agent)
  if (state.status) params.set('status', state.status)
  for (const tool of state.tools) params.append('tools', tool)
  if (state.from) params.set('from', state.from)
  if (state.to) params.set('to', state.to)
  for (const origin of state.origins) params.append('origin', origin)
  for (const axis of SCOPE_AXES) if (state[axis]) params.set(axis, state[axis])
  if (state.forkedFrom) params.set('forked_from', state.forkedFrom)
  if (state.sort !== 'newest') params.set('sort', state.sort)
  if (state.page > 1) params.set('page', String(state.page))
  return params
}

/** The API query: local calendar days become exact UTC bounds (the whole of `to` included). */
export function apiQuery(state: HistoryState): URLSearchParams {
  const params = writeState(state)
  params.set('sort', state.sort)
  params.set('page', String(state.page))
  if (state.from) params.set('from', new Date(`${state.from}T00:00:00`).toISOString())
  if (state.to) params.set('to', new Date(`${state.to}T23:59:59.999`).toISOString())
  return params
}

/** How many filters are on (search and sort are not filters; a date range counts once). */
export function activeFilterCount(state: HistoryState): number {
  const on = [
    state.agents.length > 0,
    state.status !== '',
    state.tools.length > 0,
    Boolean(state.from || state.to),
    state.origins.length > 0,
    ...SCOPE_AXES.map((axis) => state[axis] !== ''),
    state.forkedFrom !== '',
  ]
  return on.filter(Boolean).length
}

/** Every filter off; search and sort stay. */
export const NO_FILTERS: Partial<HistoryState> = {
  agents: [],
  status: '',
  tools: [],
  from: '',
  to: '',
  origins: [],
  tenant: '',
  actor: '',
  subject: '',
  forkedFrom: '',
}

/** Apply a change; anything but a page change goes back to page 1. */
export function changeState(state: HistoryState, change: Partial<HistoryState>): HistoryState {
  const next = { ...state, ...change }
  if (!('page' in change)) next.page = 1
  return next
}

/** "26–50 of 1,234", or "of 1,234+" when the total is only a lower bound. */
export function countLabel(page: number, pageSize: number, shown: number, total: number, exact: boolean): string {
  const first = (page - 1) * pageSize + 1
  return `${formatInt(first)}–${formatInt(first + shown - 1)} of ${formatInt(total)}${exact ? '' : '+'}`
}
