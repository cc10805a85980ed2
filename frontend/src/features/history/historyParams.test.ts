import { activeFilterCount, apiQuery, changeState, countLabel, DEFAULT_STATE, readState, writeState } from './historyParams'

describe('history state in the URL', () => {
  it('round-trips through the query string', () => {
    const state = { search: 'refund', agents: ['a.one', 'a.two'], status: 'error' as const, tools: ['lookup_order'], from: '2026-11-01', to: '2026-11-30', sort: 'oldest' as const, page: 3 }
    const query = writeState(state)
    expect(query.toString()).toBe('search=refund&agents=a.one&agents=a.two&status=error&tools=lookup_order&from=2026-11-01&to=2026-11-30&sort=oldest&page=3')
    expect(readState(query)).toEqual(state)
  })

  it('leaves defaults out of the URL', () => {
    expect(writeState(DEFAULT_STATE).toString()).toBe('')
  })

  it('ignores values it cannot use', () => {
    expect(readState(new URLSearchParams('status=maybe&page=-2&sort=sideways&from=yesterday'))).toEqual(DEFAULT_STATE)
  })

  it('goes back to page 1 when anything but the page changes', () => {
    const onPage4 = { ...DEFAULT_STATE, page: 4 }
    expect(changeState(onPage4, { status: 'success' }).page).toBe(1)
    expect(changeState(onPage4, { page: 5 }).page).toBe(5)
  })

  it('counts active filters; search and sort are not filters, a date range counts once', () => {
    expect(activeFilterCount(DEFAULT_STATE)).toBe(0)
    expect(activeFilterCount({ ...DEFAULT_STATE, search: 'x', sort: 'oldest' })).toBe(0)
    expect(activeFilterCount({ ...DEFAULT_STATE, agents: ['a', 'b'], status: 'error', tools: ['t'], from: '2026-01-01', to: '2026-01-02' })).toBe(4)
  })

  it('asks the API for whole local days, always with sort and page', () => {
    const query = apiQuery({ ...DEFAULT_STATE, from: '2026-11-01', to: '2026-11-30' })
    expect(query.get('sort')).toBe('newest')
    expect(query.get('page')).toBe('1')
    expect(new Date(query.get('from')!).getTime()).toBe(new Date('2026-11-01T00:00:00').getTime())
    expect(new Date(query.get('to')!).getTime()).toBe(new Date('2026-11-30T23:59:59.999').getTime())
  })

  it('marks a total that is only a lower bound', () => {
    expect(countLabel(2, 25, 25, 1234, true)).toBe('26–50 of 1,234')
    expect(countLabel(1, 25, 25, 1025, false)).toBe('1–25 of 1,025+')
  })
})
