import { activeFilterCount, apiQuery, changeState, countLabel, DEFAULT_STATE, NO_FILTERS, readState, validScopeFilter, writeState } from './historyParams'

const FORK_ID = '0193aaaa-0000-7000-8000-000000000002'

describe('history state in the URL', () => {
  it('round-trips through the query string', () => {
    const state = { ...DEFAULT_STATE, search: 'refund', agents: ['a.one', 'a.two'], status: 'error' as const, tools: ['lookup_order'], from: '2026-11-01', to: '2026-11-30', sort: 'oldest' as const, page: 3 }
    const query = writeState(state)
    expect(query.toString()).toBe('search=refund&agents=a.one&agents=a.two&status=error&tools=lookup_order&from=2026-11-01&to=2026-11-30&sort=oldest&page=3')
    expect(readState(query)).toEqual(state)
  })

  it('round-trips origin, scope and fork filters under the names the API takes', () => {
    const state = { ...DEFAULT_STATE, origins: ['app' as const, 'task' as const], tenant: 'firm:7', actor: 'user', subject: 'case:9:b', forkedFrom: FORK_ID }
    const query = writeState(state)
    expect(query.toString()).toBe(`origin=app&origin=task&tenant=firm%3A7&actor=user&subject=case%3A9%3Ab&forked_from=${FORK_ID}`)
    expect(readState(query)).toEqual(state)
    const api = apiQuery(state)
    expect(api.getAll('origin')).toEqual(['app', 'task'])
    expect(api.get('tenant')).toBe('firm:7')
    expect(api.get('actor')).toBe('user')
    expect(api.get('forked_from')).toBe(FORK_ID)
  })

  it('drops origins and scope filters it cannot use', () => {
    const state = readState(new URLSearchParams('origin=app&origin=nowhere&origin=app&tenant=:7&actor=%00&subject=%20case:9&forked_from=not-an-id'))
    expect(state.origins).toEqual(['app'])
    expect(state.tenant).toBe('')
    expect(state.actor).toBe('')
    expect(state.forkedFrom).toBe('')
    // Surrounding spaces are trimmed, then the value is used.
    expect(state.subject).toBe('case:9')
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
    // Origins count once however many are chosen; each scope axis counts on its own.
    expect(activeFilterCount({ ...DEFAULT_STATE, origins: ['app', 'task'], tenant: 'firm:7', subject: 'case' })).toBe(3)
    expect(activeFilterCount({ ...DEFAULT_STATE, forkedFrom: FORK_ID })).toBe(1)
  })

  it('clearing filters keeps search and sort', () => {
    const busy = { ...DEFAULT_STATE, search: 'x', sort: 'oldest' as const, origins: ['app' as const], actor: 'user:1', agents: ['a'] }
    const cleared = changeState(busy, NO_FILTERS)
    expect(activeFilterCount(cleared)).toBe(0)
    expect(cleared.search).toBe('x')
    expect(cleared.sort).toBe('oldest')
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

  it('takes a scope filter as type:id or a type alone', () => {
    expect(validScopeFilter('firm:7')).toBe(true)
    expect(validScopeFilter('firm')).toBe(true)
    expect(validScopeFilter('doc:a:b')).toBe(true)
    expect(validScopeFilter('')).toBe(false)
    expect(validScopeFilter(':7')).toBe(false)
    expect(validScopeFilter('firm:')).toBe(true)
    expect(validScopeFilter('firm:\u0000')).toBe(false)
    expect(validScopeFilter(' firm:7')).toBe(false)
    expect(validScopeFilter(`${'t'.repeat(256)}:1`)).toBe(false)
  })
})
