import { describe, expect, it } from 'vitest'
import type { CaseComparison, CaseResult } from './api'
import { passRate, runName, signedMs, tally, verdictOf, whyFailed } from './verdicts'

const result = (over: Partial<CaseResult>): CaseResult => ({
  position: 0,
  case: 'order',
  passed: true,
  conversation_id: null,
  output: 'ok',
  assertions: {},
  scores: {},
  labels: {},
  error: null,
  cost: null,
  input_tokens: 0,
  output_tokens: 0,
  duration_ms: 0,
  ...over,
})

describe('verdicts', () => {
  it('reads a case as pass, fail or error, error first', () => {
    expect(verdictOf(result({}))).toBe('pass')
    expect(verdictOf(result({ passed: false }))).toBe('fail')
    expect(verdictOf(result({ passed: false, error: 'ValueError: no' }))).toBe('error')
  })

  it('says why a case failed: the error, else each failing assertion with its reason', () => {
    expect(whyFailed(result({ error: 'boom' }))).toEqual(['boom'])
    const failed = result({
      passed: false,
      assertions: { Contains: { value: false, reason: "'x' not found" }, ToolCalled: { value: true, reason: null }, Equals: { value: false, reason: null } },
    })
    expect(whyFailed(failed)).toEqual(["Contains: 'x' not found", 'Equals'])
  })

  it('names a run and its pass rate', () => {
    expect(passRate({ pass_rate: null })).toBe('—')
    expect(passRate({ pass_rate: 2 / 3 })).toBe('67%')
    expect(runName({ label: null, model: null })).toBe("agent's own model")
    expect(runName({ label: null, model: 'test' })).toBe('test')
    expect(runName({ label: 'pr-7', model: 'test' })).toBe('pr-7')
  })

  it('counts the changes worst first and signs the deltas', () => {
    const entry = (change: string) => ({ change }) as CaseComparison
    expect(tally([entry('still passing'), entry('regressed'), entry('still passing')])).toEqual([
      ['regressed', 1],
      ['still passing', 2],
    ])
    expect([signedMs(120), signedMs(-40), signedMs(0), signedMs(null)]).toEqual(['+120 ms', '−40 ms', '±0 ms', '—'])
  })
})
