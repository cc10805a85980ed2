import { changeState, DEFAULT_STATE, overrunsQuery, readState, spendQuery, writeState } from './spendParams'

const read = (query: string) => readState(new URLSearchParams(query))

describe('the Spend page in the URL', () => {
  it('reads the plain page as the defaults and writes it back empty', () => {
    expect(read('')).toEqual(DEFAULT_STATE)
    expect(writeState(DEFAULT_STATE).toString()).toBe('')
  })

  it('round-trips every setting', () => {
    const query = 'tab=overruns&by=model&stack=model&from=2026-05-01&to=2026-05-31&agent=demo.support&user=user%3A42&tenant=firm%3A7&model=openai%3Agpt-5&limit=0193&page=3'
    const state = read(query)
    expect(state).toMatchObject({ tab: 'overruns', by: 'model', stack: 'model', from: '2026-05-01', to: '2026-05-31', user: 'user:42', page: 3 })
    expect(writeState(state).toString()).toBe(query)
  })

  it('drops what it cannot use', () => {
    const state = read('tab=bills&by=week&stack=user&from=2026-13-45&to=tomorrow&page=-2&agent=%20%20')
    expect(state).toEqual(DEFAULT_STATE)
    // A reversed range is put the right way round.
    expect(read('from=2026-05-31&to=2026-05-01')).toMatchObject({ from: '2026-05-01', to: '2026-05-31' })
  })

  it('asks the report for the grouping, the stacking, the days and the filters only', () => {
    const state = read('tab=limits&by=agent&from=2026-05-01&user=user%3A42&limit=x&page=2')
    expect(spendQuery(state).toString()).toBe('by=agent&stack=agent&from=2026-05-01&user=user%3A42')
    expect(overrunsQuery(state).toString()).toBe('limit=x&from=2026-05-01&page=2')
  })

  it('goes back to the first page of the log on any change but a page change', () => {
    const state = { ...DEFAULT_STATE, page: 4 }
    expect(changeState(state, { limit: 'x' }).page).toBe(1)
    expect(changeState(state, { page: 5 }).page).toBe(5)
  })
})
