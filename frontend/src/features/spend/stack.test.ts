import type { SpendPoint } from '@/lib/api/spend'
import { dayRange, labelEvery, MAX_EMPTY_SPAN, niceTicks, OTHER, stackSeries } from './stack'

const point = (day: string, key: string, cost: string | null): SpendPoint => ({ day, key, cost })

describe('stackSeries', () => {
  const series = [
    point('2026-05-01', 'support', '0.10'),
    point('2026-05-01', 'triage', '0.20'),
    point('2026-05-03', 'support', '0.05'),
    point('2026-05-03', 'triage', null),
  ]

  it('makes one column per day of the range, empty days included, keys by total cost', () => {
    const stacked = stackSeries(series, '2026-04-30', '2026-05-04')
    expect(stacked.columns.map((c) => c.day)).toEqual(['2026-04-30', '2026-05-01', '2026-05-02', '2026-05-03', '2026-05-04'])
    // triage cost 0.20 in all, support 0.15: triage is the bottom of each bar.
    expect(stacked.keys).toEqual(['triage', 'support'])
    expect(stacked.totals).toEqual({ triage: '0.2', support: '0.15' })
    const [, first, empty, third] = stacked.columns
    expect(first!.segments.map((s) => [s.key, s.cost, s.y0, s.y1])).toEqual([
      ['triage', '0.2', 0, 0.2],
      ['support', '0.1', 0.2, 0.30000000000000004],
    ])
    // The day's total is exact, whatever the floats of the geometry say.
    expect(first!.total).toBe('0.3')
    expect(empty!.segments).toEqual([])
    expect(empty!.total).toBe('0')
    expect(third!.unpriced).toBe(true)
    expect(third!.total).toBe('0.05')
    expect(stacked.max).toBeCloseTo(0.3)
  })

  it('spans the days with spend when no range is given', () => {
    expect(stackSeries(series).columns.map((c) => c.day)).toEqual(['2026-05-01', '2026-05-02', '2026-05-03'])
    expect(stackSeries([]).columns).toEqual([])
  })

  it('folds the cheapest keys into Other, their amounts added exactly', () => {
    const many = ['a', 'b', 'c', 'd'].map((key, i) => point('2026-05-01', key, `0.${4 - i}`))
    const stacked = stackSeries([...many, point('2026-05-02', 'd', '0.05')], '', '', 3)
    expect(stacked.keys).toEqual(['a', 'b', OTHER])
    expect(stacked.totals[OTHER]).toBe('0.35')
    expect(stacked.columns[0]!.segments.map((s) => [s.key, s.cost])).toEqual([
      ['a', '0.4'],
      ['b', '0.3'],
      [OTHER, '0.3'],
    ])
  })
})

describe('dayRange', () => {
  it('crosses months and leap days in UTC', () => {
    expect(dayRange([], '2028-02-28', '2028-03-01')).toEqual(['2028-02-28', '2028-02-29', '2028-03-01'])
  })

  it('cuts a wide range to the days with spend', () => {
    const days = dayRange(['2026-05-02', '2026-05-04'], '2020-01-01', '2026-05-05')
    expect(days).toEqual(['2026-05-02', '2026-05-03', '2026-05-04'])
    expect(dayRange([], '2026-01-01', '2026-12-31')).toHaveLength(365)
    expect(MAX_EMPTY_SPAN).toBeLessThan(365)
  })

  it('ignores a reversed or malformed range', () => {
    expect(dayRange(['2026-05-02'], '2026-06-01', '2026-05-01')).toEqual(['2026-05-02'])
    expect(dayRange(['2026-05-02'], 'yesterday', '')).toEqual(['2026-05-02'])
  })
})

describe('axis', () => {
  it('steps by 1, 2 or 5 times a power of ten past the maximum', () => {
    expect(niceTicks(0.3)).toEqual([0, 0.1, 0.2, 0.3])
    expect(niceTicks(7.3)).toEqual([0, 2, 4, 6, 8])
    expect(niceTicks(0.00042)).toEqual([0, 0.0002, 0.0004, 0.0006])
    expect(niceTicks(100)).toEqual([0, 50, 100])
    expect(niceTicks(0)).toEqual([0])
  })

  it('thins the day labels so they never overlap', () => {
    expect(labelEvery(7, 700)).toBe(1)
    expect(labelEvery(90, 560)).toBe(9)
  })
})
