import { branchTitle, branchTitles } from './titles'

const A = '0193aaaa-0000-7000-8000-00000000000a'
const B = '0193aaaa-0000-7000-8000-00000000000b'
const conversation = (id: string, title: string, created_at: string, source: string | null = null) => ({
  id,
  title,
  created_at,
  forked_from: source === null ? null : { id: A, title: source, message_id: 'u2' },
})

describe('the titles of a comparison', () => {
  it('leaves distinct titles as they are', () => {
    const source = conversation(A, 'Orders', '2026-11-30T06:00:00Z')
    const fork = conversation(B, 'fork of Orders', '2026-11-30T07:00:00Z', 'Orders')
    expect(branchTitles(source, fork)).toEqual(['Orders', 'fork of Orders'])
    expect(branchTitle(conversation(A, '', '2026-11-30T06:00:00Z'))).toBe('Untitled')
  })

  it('names a fork that kept its source\'s title a fork', () => {
    const source = conversation(A, 'Orders', '2026-11-30T06:00:00Z')
    const fork = conversation(B, 'Orders', '2026-11-30T07:00:00Z', 'Orders')
    expect(branchTitles(source, fork)).toEqual(['Orders', 'fork of Orders'])
    // Renamed, or already a `fork of`: as it is.
    expect(branchTitle(conversation(B, 'Refunds', '2026-11-30T07:00:00Z', 'Orders'))).toBe('Refunds')
    expect(branchTitle(conversation(B, 'fork of Orders', '2026-11-30T07:00:00Z', 'fork of Orders'))).toBe('fork of Orders')
  })

  it('tells two alike titles apart by when they were made, else by their ids', () => {
    const first = conversation(A, 'fork of Orders', '2026-11-30T06:00:00Z', 'Orders')
    const second = conversation(B, 'fork of Orders', '2026-12-01T09:30:00Z', 'Orders')
    const [a, b] = branchTitles(first, second)
    expect(a).not.toBe(b)
    expect(a.startsWith('fork of Orders · ')).toBe(true)
    expect(b.startsWith('fork of Orders · ')).toBe(true)
    const same = branchTitles(first, { ...second, created_at: first.created_at })
    expect(same).toEqual(['fork of Orders · …00000a', 'fork of Orders · …00000b'])
    // The same conversation on both sides: nothing to tell apart.
    expect(branchTitles(first, first)).toEqual(['fork of Orders', 'fork of Orders'])
  })
})
