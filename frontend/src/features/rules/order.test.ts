import type { Rule } from './api'
import { moveBy } from './order'

const rule = (id: string, priority: number, created_at = `2026-05-01T00:00:0${id.slice(1)}.000Z`): Rule => ({
  id, tenant: 'firm:7', subject: null, applies_to: null, text: id, priority, enabled: true, created_by: null, created_at, updated_at: created_at,
})

/** The order the server would list `list` in once `changes` are written. */
function after(list: Rule[], changes: { id: string; priority: number }[]): string[] {
  const written = list.map((r) => ({ ...r, priority: changes.find((c) => c.id === r.id)?.priority ?? r.priority }))
  return written.sort((a, b) => a.priority - b.priority || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)).map((r) => r.id)
}

describe('moveBy', () => {
  it('swaps the priorities of two neighbours that differ', () => {
    const list = [rule('r1', 0), rule('r2', 5), rule('r3', 9)]
    expect(moveBy(list, 1, 1)).toEqual([{ id: 'r3', priority: 5 }, { id: 'r2', priority: 9 }])
    expect(moveBy(list, 0, -1)).toEqual([])
    expect(moveBy(list, 2, 1)).toEqual([])
  })

  it('changes as few rules as it takes when priorities tie', () => {
    const ties = [rule('r1', 0), rule('r2', 0), rule('r3', 0), rule('r4', 0)]
    // To an end of the tie: one rule changes; within it, two.
    for (const [index, step, count] of [[1, -1, 1], [0, 1, 1], [3, -1, 1], [2, 1, 1], [2, -1, 2], [1, 1, 2]] as const) {
      const changes = moveBy(ties, index, step)
      const expected = ties.map((r) => r.id)
      ;[expected[index], expected[index + step]] = [expected[index + step]!, expected[index]!]
      expect(after(ties, changes)).toEqual(expected)
      expect(changes.length).toBe(count)
    }
  })

  it('never moves a rule past one it was not swapped with', () => {
    // r3 was written first: given r1's priority, a plain swap would put it before r1 as well.
    const list = [rule('r1', 0, '2026-05-01T00:00:02.000Z'), rule('r2', 0, '2026-05-01T00:00:03.000Z'), rule('r3', 1, '2026-05-01T00:00:01.000Z')]
    const changes = moveBy(list, 2, -1)
    expect(after(list, changes)).toEqual(['r1', 'r3', 'r2'])
  })
})
