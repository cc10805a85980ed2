import type { ConversationRow } from '@/lib/api/types'
import { groupForks } from './forkGroups'

const row = (id: string, forkedFrom: string | null = null): ConversationRow => ({
  id, agent_key: 'demo.a', agent_name: 'a', title: id, status: 'success', origin: 'playground', tenant: null, actor: null, subject: null,
  forked_from_id: forkedFrom, input_tokens: 0, output_tokens: 0, total_tokens: 0, cost: null, message_count: 2, tool_count: 0,
  created_at: '2026-11-30T06:00:00.000Z', updated_at: '2026-11-30T06:00:00.000Z',
})

const shape = (rows: ConversationRow[]) => groupForks(rows).map(({ row, depth, forkOf }) => [row.id, depth, forkOf])

describe('forks in History', () => {
  it('puts a fork right under its source when both are on the page, keeping page order', () => {
    // Newest first: the forks are newer than their source, so they come before it on the page.
    const rows = [row('f2', 's'), row('other'), row('f1', 's'), row('s'), row('last')]
    expect(shape(rows)).toEqual([
      ['other', 0, null],
      ['s', 0, null],
      ['f2', 1, null],
      ['f1', 1, null],
      ['last', 0, null],
    ])
  })

  it('nests a fork of a fork one level deeper', () => {
    expect(shape([row('g', 'f'), row('f', 's'), row('s')])).toEqual([
      ['s', 0, null],
      ['f', 1, null],
      ['g', 2, null],
    ])
  })

  it('leaves a fork whose source is not on the page in place, saying what it forks', () => {
    expect(shape([row('a'), row('f', 'elsewhere'), row('g', 'f')])).toEqual([
      ['a', 0, null],
      ['f', 0, 'elsewhere'],
      ['g', 1, null],
    ])
  })

  it('shows every row once, even when sources only point at each other', () => {
    expect(shape([row('x', 'y'), row('y', 'x'), row('self', 'self')])).toEqual([
      ['self', 0, null],
      ['x', 0, 'y'],
      ['y', 1, null],
    ])
  })
})
