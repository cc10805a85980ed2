// How a run and a case read in the Evals pages: a case's verdict, a run's pass rate, the failing
// assertions' reasons, and the order of the comparison's changes (what got worse first).
import type { CaseComparison, CaseResult, Run } from './api'

export type Verdict = 'pass' | 'fail' | 'error'

export const verdictOf = (result: CaseResult): Verdict => (result.error ? 'error' : result.passed ? 'pass' : 'fail')

/** `67%` of the ended cases, `—` before any case ended. */
export const passRate = (run: Pick<Run, 'pass_rate'>): string => (run.pass_rate === null ? '—' : `${Math.round(run.pass_rate * 100)}%`)

/** What a run ran on: its label, else its model, else the agent's own model. */
export const runName = (run: Pick<Run, 'label' | 'model'>): string => run.label || run.model || "agent's own model"

/** Why a case did not pass: its error, else each failing assertion with its reason. */
export function whyFailed(result: CaseResult): string[] {
  if (result.error) return [result.error]
  return Object.entries(result.assertions)
    .filter(([, assertion]) => !(assertion as { value?: unknown }).value)
    .map(([name, assertion]) => {
      const reason = (assertion as { reason?: string | null }).reason
      return reason ? `${name}: ${reason}` : name
    })
}

/** The comparison's changes, worst first, with the words the page shows. */
export const CHANGES: Record<string, { label: string; tone: 'bad' | 'good' | 'same' }> = {
  regressed: { label: 'passed before, fails now', tone: 'bad' },
  'still failing': { label: 'still failing', tone: 'same' },
  new: { label: 'new case', tone: 'same' },
  gone: { label: 'not in this run', tone: 'same' },
  fixed: { label: 'failed before, passes now', tone: 'good' },
  'still passing': { label: 'still passing', tone: 'same' },
}

/** The tally of a comparison: how many cases of each change. */
export function tally(cases: CaseComparison[]): [change: string, count: number][] {
  const counts = new Map<string, number>()
  for (const entry of cases) counts.set(entry.change, (counts.get(entry.change) ?? 0) + 1)
  return Object.keys(CHANGES)
    .filter((change) => counts.has(change))
    .map((change) => [change, counts.get(change)!])
}

/** A signed difference in milliseconds, `+120 ms` / `−40 ms`; `—` when unknown. */
export function signedMs(delta: number | null): string {
  if (delta === null) return '—'
  return `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta)} ms`
}
