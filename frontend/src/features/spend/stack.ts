// The chart's data: the report's per-day series stacked into one column per day (empty days
// included), its keys ordered by what they cost, the smallest folded into "other".
import type { SpendPoint } from '@/lib/api/spend'
import { sumDecimals, toNumber } from './money'

export interface Segment {
  key: string
  /** Exact, or null when every call behind it is unpriced. */
  cost: string | null
  /** Where the segment starts and ends, in the currency (for geometry only). */
  y0: number
  y1: number
}

export interface Column {
  day: string
  /** Bottom to top, in the order of `keys`; only the keys with something that day. */
  segments: Segment[]
  /** The day's exact total ("0" for a day without calls); null when nothing that day has a price. */
  total: string | null
  /** A key that day is unpriced. */
  unpriced: boolean
}

export interface Stacked {
  columns: Column[]
  /** Most expensive first (the bottom of each bar); `OTHER` last when keys were folded. */
  keys: string[]
  /** Each key's exact total over the range. */
  totals: Record<string, string | null>
  /** The tallest column, in the currency. */
  max: number
}

/** The key of the folded keys. */
export const OTHER = 'Other'
/** How many keys get their own colour before the rest are folded into "Other". */
export const MAX_KEYS = 7
/** Beyond this many days, the empty days before the first and after the last spend are left out. */
export const MAX_EMPTY_SPAN = 120

const DAY = /^\d{4}-\d{2}-\d{2}$/
const MS_PER_DAY = 86_400_000

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + MS_PER_DAY).toISOString().slice(0, 10)
}

function daysBetween(first: string, last: string): number {
  return Math.round((Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / MS_PER_DAY)
}

/**
 * Every day from `from` to `to` (the range asked for; either may be empty: from the first or to
 * the last day with spend). A wide range is cut down to the days that have spend.
 */
export function dayRange(seriesDays: readonly string[], from = '', to = ''): string[] {
  const known = [...seriesDays].filter((day) => DAY.test(day)).sort()
  let first = DAY.test(from) ? from : (known[0] ?? '')
  let last = DAY.test(to) ? to : (known.at(-1) ?? '')
  if (!first || !last || first > last) return known.length ? dayRange(known) : []
  if (daysBetween(first, last) > MAX_EMPTY_SPAN && known.length) {
    first = known[0]! > first ? known[0]! : first
    last = known.at(-1)! < last ? known.at(-1)! : last
  }
  const days: string[] = []
  for (let day = first; day <= last; day = nextDay(day)) days.push(day)
  return days
}

/** Stack the series: one column per day of the range, the keys ordered by their total cost. */
export function stackSeries(series: readonly SpendPoint[], from = '', to = '', maxKeys = MAX_KEYS): Stacked {
  const byKey = new Map<string, (string | null)[]>()
  for (const point of series) byKey.set(point.key, [...(byKey.get(point.key) ?? []), point.cost])
  const ranked = [...byKey.entries()]
    .map(([key, costs]) => [key, toNumber(sumDecimals(costs))] as const)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key]) => key)
  const keys = ranked.length > maxKeys ? [...ranked.slice(0, maxKeys - 1), OTHER] : ranked
  const kept = new Set(keys)

  // day → key → the costs that land there (a folded key gathers several).
  const cells = new Map<string, Map<string, (string | null)[]>>()
  for (const point of series) {
    const day = cells.get(point.day) ?? new Map<string, (string | null)[]>()
    const key = kept.has(point.key) ? point.key : OTHER
    day.set(key, [...(day.get(key) ?? []), point.cost])
    cells.set(point.day, day)
  }
  const totals: Record<string, string | null> = {}
  for (const key of keys) totals[key] = null
  let max = 0
  const columns = dayRange([...cells.keys()], from, to).map((day): Column => {
    const cell = cells.get(day)
    const segments: Segment[] = []
    let top = 0
    for (const key of keys) {
      const costs = cell?.get(key)
      if (!costs) continue
      const cost = sumDecimals(costs)
      const height = toNumber(cost)
      segments.push({ key, cost, y0: top, y1: top + height })
      top += height
      totals[key] = sumDecimals([totals[key], cost])
    }
    max = Math.max(max, top)
    const total = segments.length ? sumDecimals(segments.map((s) => s.cost)) : '0'
    return { day, segments, total, unpriced: segments.some((s) => s.cost === null) }
  })
  return { columns, keys, totals, max }
}

/** Round axis steps (1, 2 or 5 times a power of ten) from 0 past `max`: about `count` of them. */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0]
  const rough = max / count
  const power = 10 ** Math.floor(Math.log10(rough))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power
  const ticks: number[] = []
  for (let i = 0; ticks.length === 0 || ticks.at(-1)! < max; i++) ticks.push(Number((i * step).toPrecision(12)))
  return ticks
}

/** Show every n-th day's label so that labels of about `labelWidth` pixels never overlap. */
export function labelEvery(days: number, width: number, labelWidth = 56): number {
  if (days <= 0 || width <= 0) return 1
  return Math.max(1, Math.ceil(days / Math.max(1, Math.floor(width / labelWidth))))
}
