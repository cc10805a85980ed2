import type { ReplayMessage } from '@/lib/api/types'
import { alignTurns, branchTotals, sameRow, splitTurns, summarizeTurn } from './turns'

const at = '2026-11-30T06:00:00.000Z'
const user = (id: string, content: string, copied: string | null = null): ReplayMessage => ({ id, copied_from_id: copied, role: 'user', status: 'complete', content, created_at: at, attachments: [] })
const answer = (id: string, text: string, copied: string | null = null, extra: Partial<Extract<ReplayMessage, { role: 'assistant' }>> = {}): ReplayMessage => ({
  id, copied_from_id: copied, role: 'assistant', status: 'complete', content: text, created_at: at, parts: [{ type: 'text', text }],
  usage: null, input_tokens: 10, output_tokens: 4, cost: 0.002, duration_ms: 300, meta: { model: 'demo', provider: 'synapse' }, ...extra,
})
const error = (id: string, content: string): ReplayMessage => ({ id, copied_from_id: null, role: 'error', status: 'complete', content, created_at: at, details: null })

// The source: three turns. The fork re-ran the second one: it holds copies of the first turn.
const source = [user('u1', 'Hello'), answer('a1', 'Hi'), user('u2', 'Where is A-1001?'), answer('a2', 'Shipped.'), user('u3', 'Thanks'), answer('a3', 'Welcome')]
const fork = [user('c1', 'Hello', 'u1'), answer('c2', 'Hi', 'a1'), user('n1', 'Where is order A-1001 now?'), answer('n2', 'On its way.', null, { meta: { model: 'test', provider: null } })]

describe('turns', () => {
  it('cuts a thread at each user message; rows before the first one form a turn of their own', () => {
    const notice: ReplayMessage = { id: 'n', copied_from_id: null, role: 'notice', status: 'complete', content: 'Fell back', created_at: at, meta: null }
    const turns = splitTurns([notice, ...source.slice(0, 4), error('e', 'boom')])
    expect(turns.map((t) => [t.user?.id ?? null, t.rows.map((r) => r.id)])).toEqual([
      [null, ['n']],
      ['u1', ['a1']],
      ['u2', ['a2', 'e']],
    ])
  })

  it('knows a row from its copy, a copy from its row, and two copies of one row', () => {
    expect(sameRow(user('u1', 'x'), user('c1', 'x', 'u1'))).toBe(true)
    expect(sameRow(user('c1', 'x', 'u1'), user('u1', 'x'))).toBe(true)
    expect(sameRow(user('c1', 'x', 'u1'), user('d1', 'x', 'u1'))).toBe(true)
    expect(sameRow(user('u1', 'x'), user('u2', 'x'))).toBe(false)
    // Same text is not the same row.
    expect(sameRow(user('c1', 'x', 'u1'), user('d1', 'x', 'u9'))).toBe(false)
  })

  it('folds the copied turns into one shared row, then pairs the rest by position', () => {
    const rows = alignTurns(source, fork)
    expect(rows.map((row) => (row.kind === 'shared' ? ['shared', row.start, row.turns.length] : ['turn', row.index, row.a?.user?.id ?? null, row.b?.user?.id ?? null]))).toEqual([
      ['shared', 0, 1],
      ['turn', 1, 'u2', 'n1'],
      ['turn', 2, 'u3', null],
    ])
  })

  it('collapses each run of shared turns; two forks of one source share the copies', () => {
    const other = [user('d1', 'Hello', 'u1'), answer('d2', 'Hi', 'a1'), user('m1', 'Something else'), answer('m2', 'Sure')]
    const rows = alignTurns(fork, other)
    expect(rows[0]).toMatchObject({ kind: 'shared', start: 0 })
    expect(rows[1]).toMatchObject({ kind: 'turn', index: 1 })
    // A conversation against itself: one shared row of every turn.
    expect(alignTurns(source, source)).toEqual([{ kind: 'shared', start: 0, turns: splitTurns(source) }])
  })

  it('a turn shared only in part (the answer differs) is a differing turn', () => {
    const retried = [user('c1', 'Hello', 'u1'), answer('x', 'Hi again')]
    expect(alignTurns(source.slice(0, 2), retried)).toEqual([expect.objectContaining({ kind: 'turn', index: 0 })])
  })

  it('two unrelated conversations differ turn by turn', () => {
    const rows = alignTurns([user('p', 'a'), answer('q', 'b')], [user('r', 'a'), answer('s', 'b')])
    expect(rows).toHaveLength(1)
    expect(rows[0]!.kind).toBe('turn')
  })
})

describe('a turn summary', () => {
  it('adds up the answers: tokens, cost, duration, tools and models', () => {
    const withTool = answer('a', 'Found it.', null, {
      parts: [{ type: 'tool', tool: { id: 't', tool_call_id: 'call_t', kind: 'function', name: 'lookup_order', arguments: {}, result: {}, status: 'success', duration_ms: 42 } }, { type: 'text', text: 'Found it.' }],
    })
    const [turn] = splitTurns([user('u', 'Where?'), withTool, answer('b', 'More.', null, { meta: { model: 'gpt', provider: 'openai' } }), error('e', 'boom')])
    const summary = summarizeTurn(turn!)
    expect(summary.userText).toBe('Where?')
    expect(summary.answer).toBe('Found it.\n\nMore.')
    expect(summary.tools).toEqual([{ name: 'lookup_order', status: 'success', durationMs: 42 }])
    expect(summary.inputTokens).toBe(20)
    expect(summary.outputTokens).toBe(8)
    expect(summary.cost).toBeCloseTo(0.004)
    expect(summary.durationMs).toBe(600)
    expect(summary.models).toEqual(['synapse:demo', 'openai:gpt'])
    expect(summary.errors).toEqual(['boom'])
  })

  it('an unknown price makes the turn unpriced, never free', () => {
    const [turn] = splitTurns([user('u', 'Hi'), answer('a', 'x'), answer('b', 'y', null, { cost: null })])
    expect(summarizeTurn(turn!).cost).toBeNull()
    const [unanswered] = splitTurns([user('u', 'Hi'), error('e', 'boom')])
    expect(summarizeTurn(unanswered!).cost).toBeNull()
    expect(summarizeTurn(unanswered!).durationMs).toBeNull()
  })

  it('structured output shows as a JSON block', () => {
    const [turn] = splitTurns([user('u', 'Triage'), answer('a', '', null, { parts: [{ type: 'structured-output', output: { category: 'billing' } }] })])
    expect(summarizeTurn(turn!).answer).toBe('```json\n{\n  "category": "billing"\n}\n```')
  })

  it('branch totals add up every row shown, copies included', () => {
    expect(branchTotals(fork)).toEqual({ turns: 2, inputTokens: 20, outputTokens: 8, cost: 0.004, durationMs: 600, toolCalls: 0, models: ['synapse:demo', 'test'] })
    // One unpriced answer makes the branch unpriced; a turn with no answer leaves the sum alone.
    const unpriced = [...fork, user('u9', 'More'), answer('a9', 'x', null, { cost: null })]
    expect(branchTotals(unpriced).cost).toBeNull()
    expect(branchTotals([...fork, user('u9', 'More'), error('e', 'boom')]).cost).toBeCloseTo(0.004)
    expect(branchTotals([]).turns).toBe(0)
  })
})
