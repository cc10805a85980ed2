// A count reads in the singular for one ("1 tool"), and an unknown price reads "unpriced", never a dash.
import { formatCost, plural } from './format'

describe('plural', () => {
  it.each([
    [0, '0 tools'],
    [1, '1 tool'],
    [2, '2 tools'],
    [1240, '1,240 tools'],
  ])('%i → %s', (count, expected) => expect(plural(count, 'tool')).toBe(expected))

  it('takes a plural that is not the singular plus "s"', () => {
    expect(plural(1, 'reply', 'replies')).toBe('1 reply')
    expect(plural(3, 'reply', 'replies')).toBe('3 replies')
  })
})

describe('formatCost', () => {
  it('says unpriced when the price is unknown, and $0 only when it is free', () => {
    expect(formatCost(null)).toBe('unpriced')
    expect(formatCost(undefined)).toBe('unpriced')
    expect(formatCost(0)).toBe('$0')
  })
})
